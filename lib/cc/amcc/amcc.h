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

const char *amcc_version (void);

#ifdef __cplusplus
}
#endif
#endif
