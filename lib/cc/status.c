/* status.c - status texts and time helpers. */
#include <math.h>
#include "amcc/amcc.h"

const char *
amcc_strerror (int status)
{
  switch (status) {
    case AMCC_OK: return "ok";
    case AMCC_ERR_TRUNCATED: return "truncated input";
    case AMCC_ERR_VERSION: return "unsupported version";
    case AMCC_ERR_FIELD: return "invalid field value";
    case AMCC_ERR_NOSPACE: return "output buffer too small";
    case AMCC_ERR_PARAM: return "invalid argument";
    case AMCC_ERR_TYPE: return "unexpected packet type or name";
    case AMCC_ERR_NOMEM: return "out of memory";
    case AMCC_ERR_FULL: return "table full";
    default: return "unknown status";
  }
}

amcc_time
amcc_time_from_s (double s)
{
  if (isnan (s))
    return 0;
  if (s >= 9.2e9)
    return INT64_MAX;
  if (s <= -9.2e9)
    return INT64_MIN + 1;   /* INT64_MIN is AMCC_TIME_NONE */
  return (amcc_time) llround (s * 1e9);
}
