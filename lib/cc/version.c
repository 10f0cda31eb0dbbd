#include "amcc/amcc.h"
const char *amcc_version (void) { return "0.1.0"; }
