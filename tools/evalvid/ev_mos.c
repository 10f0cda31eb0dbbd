/* ev_mos.c - MOS classes and miv. */
#include "ev_mos.h"

#include <string.h>

/* Table 1 of papers/002 */
int ev_mos_from_psnr(double db)
{
  if (db > 37) return 5;
  if (db > 31) return 4;
  if (db > 25) return 3;
  if (db > 20) return 2;
  return 1;
}

/* EvalVid's miv: a frame counts if its MOS is below the reference's and below "good" (4). */
static int miv_counts(int mos, int ref_mos) { return mos < ref_mos && mos < 4; }

void ev_mos_compute(const double *psnr, const double *ref_psnr, size_t n, size_t window,
                    ev_mos_stats *s)
{
  memset(s, 0, sizeof *s);
  s->frames = n;
  if (!n) return;
  if (window == 0 || window > n) window = n;
  size_t in_window = 0;
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    int m = ev_mos_from_psnr(psnr[i]);
    int r = ref_psnr ? ev_mos_from_psnr(ref_psnr[i]) : 5;
    s->share[m] += 1; sum += m;
    in_window += miv_counts(m, r);
    if (i >= window) {
      size_t o = i - window;
      in_window -= miv_counts(ev_mos_from_psnr(psnr[o]), ref_psnr ? ev_mos_from_psnr(ref_psnr[o]) : 5);
    }
    if (i + 1 >= window) {
      double pct = 100.0 * (double)in_window / (double)window;
      if (pct > s->miv_worst) { s->miv_worst = pct; s->miv_window_start = i + 1 - window; }
    }
  }
  for (int c = 1; c <= 5; c++) s->share[c] /= (double)n;
  s->mean = sum / (double)n;
}
