/* ev_quality.c - per-frame PSNR and SSIM (FFmpeg-compatible definitions), threaded over frames. */
#include "ev_quality.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* One binary, the widest vector unit of the CPU it runs on (chosen once at load time). */
#define EV_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define EV_CLONES
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "16-bit samples are read as little-endian uint16_t: port ev_plane_sse/ev_plane_ssim first"
#endif

double ev_psnr_from_mse(double mse, int bits)
{
  double peak = (double)((1u << bits) - 1);
  if (mse <= 0) return EV_PSNR_CAP_DB;
  double db = 10.0 * log10(peak * peak / mse);   /* = 20 log10(peak / sqrt(MSE)), eq. 2 */
  return db > EV_PSNR_CAP_DB ? EV_PSNR_CAP_DB : db;
}

/* 8-bit: squares fit 16 bits, so 16384 of them fit a uint32 lane; the chunk total goes to uint64. */
EV_CLONES static uint64_t sse8(const uint8_t *a, const uint8_t *b, size_t n)
{
  uint64_t total = 0;
  for (size_t x0 = 0; x0 < n; x0 += 16384) {
    size_t m = n - x0 < 16384 ? n - x0 : 16384;
    uint32_t s = 0;
    for (size_t i = 0; i < m; i++) {
      int d = (int)a[x0 + i] - (int)b[x0 + i];
      s += (uint32_t)(d * d);
    }
    total += s;
  }
  return total;
}

/* Also ORs all samples of each side: bits above the depth mean the file is not of that depth. */
EV_CLONES static uint64_t sse16(const uint16_t *a, const uint16_t *b, size_t n, unsigned *or_a, unsigned *or_b)
{
  uint64_t s = 0;
  uint16_t oa = 0, ob = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t d = (int64_t)a[i] - (int64_t)b[i];
    s += (uint64_t)(d * d);
    oa |= a[i]; ob |= b[i];
  }
  *or_a |= oa; *or_b |= ob;
  return s;
}

static uint64_t plane_sse(const uint8_t *a, const uint8_t *b, int w, int h, int bps,
                          unsigned *or_a, unsigned *or_b)
{
  size_t n = (size_t)w * h;     /* planes are packed: no row padding in raw YUV files */
  if (bps == 1) return sse8(a, b, n);
  return sse16((const uint16_t *)(const void *)a, (const uint16_t *)(const void *)b, n, or_a, or_b);
}

uint64_t ev_plane_sse(const uint8_t *a, const uint8_t *b, int w, int h, int bps)
{
  unsigned oa = 0, ob = 0;
  return plane_sse(a, b, w, h, bps, &oa, &ob);
}

typedef struct { int64_t s1, s2, ss, s12; } blk_sums;

/* Sums of the 4x4 blocks of block row BY (a template over the sample type, so the inner loops
 * have no per-sample branch). */
#define BLOCK_ROW_SUMS(name, T, A)                                                                \
  static void name(const T *a, const T *b, int w, int bw, int by, blk_sums *out)                 \
  {                                                                                              \
    for (int bx = 0; bx < bw; bx++) {                                                            \
      A s1 = 0, s2 = 0, ss = 0, s12 = 0;                                                         \
      for (int y = 0; y < 4; y++) {                                                              \
        const T *pa = a + (size_t)(4 * by + y) * w + 4 * bx, *pb = b + (size_t)(4 * by + y) * w + 4 * bx; \
        for (int x = 0; x < 4; x++) {                                                            \
          A va = pa[x], vb = pb[x];                                                              \
          s1 += va; s2 += vb; ss += va * va + vb * vb; s12 += va * vb;                           \
        }                                                                                        \
      }                                                                                          \
      out[bx] = (blk_sums){ s1, s2, ss, s12 };                                                   \
    }                                                                                            \
  }
BLOCK_ROW_SUMS(block_row_sums8, uint8_t, int32_t)     /* 16 x 2 x 255^2 fits 32 bits */
BLOCK_ROW_SUMS(block_row_sums16, uint16_t, int64_t)

static void block_row_sums(const uint8_t *a, const uint8_t *b, int w, int bw, int by, int bps,
                           blk_sums *out)
{
  if (bps == 1) block_row_sums8(a, b, w, bw, by, out);
  else block_row_sums16((const uint16_t *)(const void *)a, (const uint16_t *)(const void *)b, w, bw, by, out);
}

/* SSIM of one 8x8 window from its sums (64 samples), integer form used by x264/FFmpeg. */
static double window_ssim(int64_t s1, int64_t s2, int64_t ss, int64_t s12, int64_t c1, int64_t c2)
{
  int64_t vars = ss * 64 - s1 * s1 - s2 * s2;
  int64_t covar = s12 * 64 - s1 * s2;
  return (double)(2 * s1 * s2 + c1) * (double)(2 * covar + c2) /
         ((double)(s1 * s1 + s2 * s2 + c1) * (double)(vars + c2));
}

double ev_plane_ssim(const uint8_t *a, const uint8_t *b, int w, int h, int bps, int maxv)
{
  int bw = w >> 2, bh = h >> 2;
  if (bw < 2 || bh < 2) return 1.0;    /* no complete 8x8 window: nothing to compare */
  int64_t c1 = (int64_t)(.01 * .01 * maxv * maxv * 64 + .5);
  int64_t c2 = (int64_t)(.03 * .03 * maxv * maxv * 64 * 63 + .5);
  blk_sums *prev = malloc(sizeof *prev * bw), *cur = malloc(sizeof *cur * bw);
  if (!prev || !cur) { free(prev); free(cur); return NAN; }
  block_row_sums(a, b, w, bw, 0, bps, cur);
  double total = 0;
  for (int by = 1; by < bh; by++) {
    blk_sums *t = prev; prev = cur; cur = t;
    block_row_sums(a, b, w, bw, by, bps, cur);
    for (int x = 0; x + 1 < bw; x++) {
      const blk_sums *p0 = &prev[x], *p1 = &prev[x + 1], *q0 = &cur[x], *q1 = &cur[x + 1];
      total += window_ssim(p0->s1 + p1->s1 + q0->s1 + q1->s1, p0->s2 + p1->s2 + q0->s2 + q1->s2,
                           p0->ss + p1->ss + q0->ss + q1->ss, p0->s12 + p1->s12 + q0->s12 + q1->s12,
                           c1, c2);
    }
  }
  free(prev); free(cur);
  return total / ((double)(bh - 1) * (bw - 1));
}

void ev_frame_quality_compute(const ev_yuv_geom *g, const uint8_t *ref, const uint8_t *dist,
                              bool ssim, ev_frame_quality *q)
{
  memset(q, 0, sizeof *q);
  uint64_t sse_all = 0, samples = 0;
  int maxv = (1 << g->fmt->bits) - 1;
  for (int p = 0; p < g->fmt->planes; p++) {
    uint64_t n = (uint64_t)g->pw[p] * g->ph[p];
    unsigned oa = 0, ob = 0;
    uint64_t sse = plane_sse(ref + g->off[p], dist + g->off[p], g->pw[p], g->ph[p], g->bps, &oa, &ob);
    if (oa >> g->fmt->bits) q->out_of_range |= 1;
    if (ob >> g->fmt->bits) q->out_of_range |= 2;
    q->mse[p] = (double)sse / (double)n;
    q->psnr[p] = ev_psnr_from_mse(q->mse[p], g->fmt->bits);
    sse_all += sse; samples += n;
    if (ssim) {
      q->ssim[p] = ev_plane_ssim(ref + g->off[p], dist + g->off[p], g->pw[p], g->ph[p], g->bps, maxv);
      q->ssim_all += q->ssim[p] * (double)n;
    }
  }
  q->mse_avg = (double)sse_all / (double)samples;
  q->psnr_avg = ev_psnr_from_mse(q->mse_avg, g->fmt->bits);
  if (ssim) q->ssim_all /= (double)samples;
}

typedef struct {
  const ev_yuv_geom *g;
  const uint8_t *ref, *dist;
  size_t n;
  bool ssim;
  ev_frame_quality *out;
  atomic_size_t next, done;
  ev_progress_fn progress;
  void *user;
} job;

enum { CHUNK = 4 };

static void *worker(void *arg)
{
  job *j = arg;
  for (;;) {
    size_t i0 = atomic_fetch_add(&j->next, CHUNK);
    if (i0 >= j->n) break;
    size_t i1 = i0 + CHUNK < j->n ? i0 + CHUNK : j->n;
    for (size_t i = i0; i < i1; i++)
      ev_frame_quality_compute(j->g, j->ref + i * j->g->frame_bytes, j->dist + i * j->g->frame_bytes,
                               j->ssim, &j->out[i]);
    size_t d = atomic_fetch_add(&j->done, i1 - i0) + (i1 - i0);
    if (j->progress && (d / 256 != (d - (i1 - i0)) / 256 || d == j->n)) j->progress(d, j->n, j->user);
  }
  return NULL;
}

int ev_quality_run(const ev_yuv_geom *g, const uint8_t *ref, const uint8_t *dist, size_t n,
                   bool ssim, int threads, ev_frame_quality *out,
                   ev_progress_fn progress, void *user)
{
  if (threads <= 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    threads = c > 0 ? (int)c : 1;
  }
  if ((size_t)threads > (n + CHUNK - 1) / CHUNK) threads = (int)((n + CHUNK - 1) / CHUNK);
  if (threads < 1) threads = 1;
  job j = { .g = g, .ref = ref, .dist = dist, .n = n, .ssim = ssim, .out = out,
            .progress = progress, .user = user };
  atomic_init(&j.next, 0); atomic_init(&j.done, 0);
  pthread_t tid[64];
  if (threads > 64) threads = 64;
  int started = 0;
  for (int t = 1; t < threads; t++)
    if (pthread_create(&tid[started], NULL, worker, &j) == 0) started++;
  worker(&j);
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
  return 0;
}

void ev_quality_summarize(const ev_yuv_geom *g, const ev_frame_quality *q, size_t n,
                          ev_quality_summary *s)
{
  memset(s, 0, sizeof *s);
  s->frames = n;
  if (!n) return;
  double mse_sum[4] = { 0 };
  s->min_db = INFINITY; s->max_db = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    for (int p = 0; p < 3; p++) {
      s->mean_db[p] += q[i].psnr[p]; mse_sum[p] += q[i].mse[p]; s->mean_ssim[p] += q[i].ssim[p];
    }
    s->mean_db[3] += q[i].psnr_avg; mse_sum[3] += q[i].mse_avg; s->mean_ssim[3] += q[i].ssim_all;
    if (q[i].psnr_avg < s->min_db) s->min_db = q[i].psnr_avg;
    if (q[i].psnr_avg > s->max_db) s->max_db = q[i].psnr_avg;
  }
  for (int p = 0; p < 4; p++) {
    s->mean_db[p] /= (double)n;
    s->db_of_mean_mse[p] = ev_psnr_from_mse(mse_sum[p] / (double)n, g->fmt->bits);
    s->mean_ssim[p] /= (double)n;
  }
}
