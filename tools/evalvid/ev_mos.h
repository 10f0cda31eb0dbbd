/* ev_mos.h - MOS from PSNR (ITU-R table, papers/002 Table 1) and the miv measure. */
#ifndef EV_MOS_H
#define EV_MOS_H
#include <stddef.h>

/* > 37 dB -> 5, > 31 -> 4, > 25 -> 3, > 20 -> 2, else 1: a value exactly on a boundary (37, 31,
 * 25, 20) belongs to the lower class, as "> 37" for class 5 says. */
int ev_mos_from_psnr(double db);

typedef struct {
  size_t frames;
  double share[6];     /* share[c] = fraction of frames of class c (1..5) */
  double mean;         /* mean MOS */
  double miv_worst;    /* worst window: % of frames with MOS < reference MOS and < 4 */
  size_t miv_window_start;
} ev_mos_stats;

/* PSNR per frame (and the reference's, or NULL: reference MOS 5 everywhere); WINDOW frames for
 * miv (a shorter video is one window). */
void ev_mos_compute(const double *psnr, const double *ref_psnr, size_t n, size_t window,
                    ev_mos_stats *s);
#endif
