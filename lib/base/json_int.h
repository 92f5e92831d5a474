/* SPDX-License-Identifier: MIT */
/* json_int.h: the JSON writer is public now (carcamap/json.h); this name
 * stays for the modules that include it by its old path. */
#ifndef CM_JSON_INT_H
#define CM_JSON_INT_H
#include "carcamap/json.h"
#endif
