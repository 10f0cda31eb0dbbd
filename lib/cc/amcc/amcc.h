/* amcc.h - umbrella header of the gst-amcast congestion-control core.
 * Pure C11: no GLib, no sockets, no clock reads. Every entry point takes the current time. */
#ifndef AMCC_AMCC_H
#define AMCC_AMCC_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Time in nanoseconds on the caller's monotonic clock (GstClockTime-compatible range). */
typedef int64_t amcc_time;
#define AMCC_NS_PER_S  INT64_C(1000000000)
#define AMCC_NS_PER_MS INT64_C(1000000)
#define AMCC_NS_PER_US INT64_C(1000)
/* "No time": e.g. a packet without a sender timestamp. */
#define AMCC_TIME_NONE INT64_MIN

/* Plausibility bounds shared by every decoder and estimator: an RTT, jitter or TFMCC R_max
 * above AMCC_MAX_RTT_S, or a timestamp held longer than AMCC_MAX_HOLD_S, is bogus. */
#define AMCC_MAX_RTT_S  60.0
#define AMCC_MAX_HOLD_S 600.0
#define AMCC_MAX_RTT_US  UINT32_C(60000000)
#define AMCC_MAX_HOLD_US UINT32_C(600000000)

/* Status codes. Functions that can fail return one of these (0 or negative). */
typedef enum amcc_status {
  AMCC_OK = 0,
  AMCC_ERR_TRUNCATED = -1, /* buffer shorter than the format (or than its own length field) */
  AMCC_ERR_VERSION = -2,   /* unknown RTP/RTCP or payload version */
  AMCC_ERR_FIELD = -3,     /* a field has an invalid value (NaN, negative, absurd, count vs length) */
  AMCC_ERR_NOSPACE = -4,   /* output buffer too small */
  AMCC_ERR_PARAM = -5,     /* invalid argument from the caller */
  AMCC_ERR_TYPE = -6,      /* not the expected packet type / APP name / subtype */
  AMCC_ERR_NOMEM = -7,     /* allocation failed */
  AMCC_ERR_FULL = -8       /* a table reached its configured maximum */
} amcc_status;

/* Human-readable text for an amcc_status (never NULL). */
const char *amcc_strerror (int status);

const char *amcc_version (void);

static inline double amcc_time_to_s (amcc_time t) { return (double) t / 1e9; }
/* Seconds to amcc_time, saturating; NaN gives 0. */
amcc_time amcc_time_from_s (double s);

#ifdef __cplusplus
}
#endif
#endif
