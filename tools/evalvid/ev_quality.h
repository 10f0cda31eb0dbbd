/* ev_quality.h - per-frame PSNR and SSIM of two raw YUV videos, computed the way FFmpeg's psnr
 * and ssim filters do (so the numbers can be cross-checked), on all cores. */
#ifndef EV_QUALITY_H
#define EV_QUALITY_H
#include <stdbool.h>
#include <stdint.h>
#include "ev_yuv.h"

/* PSNR printed for identical planes (MSE 0) and the ceiling for any value: a finite number keeps
 * every frame in the means and in the MOS table (EvalVid printed 0 and then skipped the frame). */
#define EV_PSNR_CAP_DB 100.0

typedef struct {
  double mse[3], psnr[3];   /* per plane (Y, U, V) */
  double mse_avg, psnr_avg; /* all samples of the frame together (FFmpeg's psnr_avg) */
  double ssim[3], ssim_all; /* per plane, and weighted by plane size (FFmpeg's "All") */
  int out_of_range;         /* bit 0: ref, bit 1: dist has samples above 2^bits - 1 (wrong depth) */
} ev_frame_quality;

/* PSNR (eq. 2 of papers/002) of a mean squared error for samples of BITS bits, capped. */
double ev_psnr_from_mse(double mse, int bits);

/* Sum of squared differences of one plane (8-bit or 16-bit little-endian samples). */
uint64_t ev_plane_sse(const uint8_t *a, const uint8_t *b, int w, int h, int bps);
/* Mean SSIM of one plane: 8x8 windows on a 4-sample grid built from 4x4 block sums (as x264 and
 * FFmpeg's ssim filter), constants from MAXV = 2^bits - 1. */
double ev_plane_ssim(const uint8_t *a, const uint8_t *b, int w, int h, int bps, int maxv);

/* One frame. */
void ev_frame_quality_compute(const ev_yuv_geom *g, const uint8_t *ref, const uint8_t *dist,
                              bool ssim, ev_frame_quality *q);

typedef void (*ev_progress_fn)(size_t done, size_t total, void *user);

/* N frames of two contiguous buffers (e.g. mapped files), with THREADS threads (0 = all cores);
 * results in out[0..n). PROGRESS (may be NULL) is called from one thread now and then. */
int ev_quality_run(const ev_yuv_geom *g, const uint8_t *ref, const uint8_t *dist, size_t n,
                   bool ssim, int threads, ev_frame_quality *out,
                   ev_progress_fn progress, void *user);

typedef struct {
  size_t frames;
  double mean_db[4];        /* mean of per-frame dB values (EvalVid's mean), Y U V avg, capped */
  double db_of_mean_mse[4]; /* PSNR of the mean MSE (FFmpeg's summary), Y U V avg */
  double min_db, max_db;    /* of per-frame psnr_avg */
  double mean_ssim[4];      /* Y U V All, mean of per-frame values (FFmpeg's summary) */
} ev_quality_summary;

void ev_quality_summarize(const ev_yuv_geom *g, const ev_frame_quality *q, size_t n,
                          ev_quality_summary *s);
#endif
