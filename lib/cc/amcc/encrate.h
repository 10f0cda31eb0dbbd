/* encrate.h - encoder rate matching: the bitrate to set on a video encoder so that what it
 * really produces matches the congestion controller's target.
 *
 * A rate-controlled encoder misses its setting both ways: x264 in CBR with a short VBV buffer
 * stays ~12 % under it (demo, 80 ms VBV: 460 of 523 kbit/s), and with the default 600 ms buffer
 * it banks what easy scenes leave unused and spends it later for seconds, over the setting. A
 * controller that only rises a little over what arrives then either sticks below the bottleneck
 * or overflows it. This measures the encoder's output over each GOP (media time, so the
 * result does not depend on scheduling) and scales the next setting by target / output-per-set,
 * within bounds, as WebRTC's encoder bitrate adjuster does for the same reason. */
#ifndef AMCC_ENCRATE_H
#define AMCC_ENCRATE_H
#include <stddef.h>
#include <amcc/amcc.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct amcc_encrate {
  double min_gain, max_gain;  /* bounds of setting / target (0.75, 1.33) */
  double weight;              /* EWMA weight of one GOP's ratio (0.3) */
  double ratio;               /* smoothed output / setting, 1 until measured */
  double set_bps;             /* the setting in force over the current window (0: none) */
  double bytes;               /* encoder output in the window */
  amcc_time start;            /* media time of the window's first frame, AMCC_TIME_NONE: none */
  uint64_t windows;           /* GOPs measured */
} amcc_encrate;

void amcc_encrate_init (amcc_encrate *e);
/* One encoded frame of `bytes` with media timestamp `pts` (counted after amcc_encrate_setting
 * when the frame is a key frame). */
void amcc_encrate_on_frame (amcc_encrate *e, amcc_time pts, size_t bytes);
/* At a GOP boundary (a key frame about to leave, `pts` its timestamp): closes the window
 * [start, pts) and returns the setting for `target_bps` (target x the gain), which the caller
 * applies and the next window measures. A window under 0.5 s or over 10 s of media (a seek, a
 * gap) updates nothing. */
double amcc_encrate_setting (amcc_encrate *e, amcc_time pts, double target_bps);

#ifdef __cplusplus
}
#endif
#endif
