/* cmd_check.c: placeholder while the command is written. */
#include "cli.h"
int cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return EXIT_IO;
}
