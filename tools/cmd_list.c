/* cmd_list.c: placeholder while the command is written. */
#include "cli.h"
int cmd_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return EXIT_IO;
}
