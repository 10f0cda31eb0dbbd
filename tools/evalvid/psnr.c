/* psnr - per-frame PSNR (and SSIM) of a distorted raw YUV video against its reference.
 * Also accepts EvalVid's command line: psnr W H 420 ref.yuv dist.yuv [ssim]. */
#include <errno.h>
#include <pthread.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ev_progress.h"
#include "ev_quality.h"

static void usage(FILE *f)
{
  fprintf(f,
"usage: psnr [options] REF.yuv DIST.yuv\n"
"       psnr W H FORMAT REF.yuv DIST.yuv [ssim]     (EvalVid's command line)\n"
"Compares two raw planar YUV files frame by frame (frame i with frame i).\n"
"  -s, --size WxH        frame size (required)\n"
"  -f, --format FMT      pixel format (default yuv420p); one of:\n"
"                        %s\n"
"      --ssim            also compute SSIM (FFmpeg ssim filter definition)\n"
"  -o, --csv FILE        per-frame CSV: frame,psnr_y,psnr_u,psnr_v,psnr_avg,mse_y,mse_u,mse_v,\n"
"                        mse_avg[,ssim_y,ssim_u,ssim_v,ssim_all]\n"
"      --ffmpeg-log FILE per-frame lines in the format of FFmpeg's psnr stats_file\n"
"  -n, --frames N        compare only the first N frames (both files must have at least N)\n"
"      --common          compare the frames both files have (the shorter count), with a warning\n"
"                        on stderr when the counts differ\n"
"  -j, --threads N       worker threads (default: all cores)\n"
"      --progress        progress lines on stderr (at most one every 2 s)\n"
"  -h, --help            this help\n"
"Output (stdout): a summary with, per plane Y/U/V and for all samples together ('avg'),\n"
"  mean_db  = the mean of the per-frame dB values (EvalVid's mean), and\n"
"  mse_db   = the PSNR of the mean MSE (what FFmpeg's psnr filter prints as its summary);\n"
"  min/max  = of the per-frame 'avg' values; ssim = mean of per-frame SSIM (FFmpeg's summary).\n"
"PSNR = 10 log10(peak^2 / MSE), peak = 2^bits - 1; an identical frame (MSE 0) counts as %.0f dB,\n"
"the cap for every value, so no frame is ever skipped.\n"
"EvalVid mode prints one value per frame on stdout (luma PSNR, or luma SSIM with 'ssim') and the\n"
"mean on stderr. Frame counts must match (or use -n or --common); a truncated file is an error.\n",
    ev_yuv_format_names(), EV_PSNR_CAP_DB);
}

static void progress(size_t done, size_t total, void *user)
{
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;   /* called from the worker threads */
  pthread_mutex_lock(&lock);
  ev_progress_report(user, "psnr", "compared", done, total);
  pthread_mutex_unlock(&lock);
}

static int parse_size(const char *s, int *w, int *h)
{
  char *e;
  long a = strtol(s, &e, 10);
  if (e == s || (*e != 'x' && *e != 'X')) return -1;
  const char *p = e + 1;
  long b = strtol(p, &e, 10);
  if (e == p || *e || a <= 0 || b <= 0 || a > 65536 || b > 65536) return -1;
  *w = (int)a; *h = (int)b;
  return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
  char *e;
  errno = 0;
  long v = strtol(s, &e, 10);
  if (e == s || *e || errno || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv)
{
  int w = 0, h = 0, threads = 0, evalvid = 0, want_ssim = 0, show_progress = 0, common = 0;
  long nlimit = -1;
  const char *fmtname = "yuv420p", *csv = NULL, *fflog = NULL, *refp, *distp;

  /* EvalVid form: first argument is a bare number (the width). */
  long tmp;
  if (argc >= 6 && parse_int(argv[1], 1, 65536, &tmp) == 0) {
    long hh;
    if (parse_int(argv[2], 1, 65536, &hh)) { fprintf(stderr, "psnr: bad height '%s'\n", argv[2]); return 2; }
    w = (int)tmp; h = (int)hh; fmtname = argv[3]; refp = argv[4]; distp = argv[5];
    if (argc == 7 && !strcmp(argv[6], "ssim")) want_ssim = 1;
    else if (argc > 6) { fprintf(stderr, "psnr: unexpected argument '%s' (EvalVid form: psnr W H FORMAT REF DIST [ssim])\n", argv[6]); return 2; }
    evalvid = 1;
  } else {
    static const struct option opts[] = {
      { "size", required_argument, 0, 's' }, { "format", required_argument, 0, 'f' },
      { "ssim", no_argument, 0, 'S' }, { "csv", required_argument, 0, 'o' },
      { "ffmpeg-log", required_argument, 0, 'L' }, { "frames", required_argument, 0, 'n' },
      { "threads", required_argument, 0, 'j' }, { "progress", no_argument, 0, 'P' },
      { "common", no_argument, 0, 'C' },
      { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    int c;
    while ((c = getopt_long(argc, argv, "s:f:o:n:j:h", opts, NULL)) != -1) {
      switch (c) {
      case 's': if (parse_size(optarg, &w, &h)) { fprintf(stderr, "psnr: bad size '%s' (want WxH)\n", optarg); return 2; } break;
      case 'f': fmtname = optarg; break;
      case 'S': want_ssim = 1; break;
      case 'o': csv = optarg; break;
      case 'L': fflog = optarg; break;
      case 'n': if (parse_int(optarg, 0, 1L << 30, &nlimit)) { fprintf(stderr, "psnr: bad frame count '%s'\n", optarg); return 2; } break;
      case 'j': if (parse_int(optarg, 0, 64, &tmp)) { fprintf(stderr, "psnr: bad thread count '%s'\n", optarg); return 2; } threads = (int)tmp; break;
      case 'P': show_progress = 1; break;
      case 'C': common = 1; break;
      case 'h': usage(stdout); return 0;
      default: usage(stderr); return 2;
      }
    }
    if (argc - optind != 2 || !w) { usage(stderr); return 2; }
    refp = argv[optind]; distp = argv[optind + 1];
  }

  const ev_yuv_format *fmt = ev_yuv_format_find(fmtname);
  if (!fmt) { fprintf(stderr, "psnr: unknown format '%s' (known: %s)\n", fmtname, ev_yuv_format_names()); return 2; }
  ev_yuv_geom g;
  if (ev_yuv_geom_init(&g, fmt, w, h)) { fprintf(stderr, "psnr: bad frame size %dx%d\n", w, h); return 2; }

  char err[512];
  ev_yuv_map ref, dist;
  if (ev_yuv_map_open(&ref, refp, &g, err, sizeof err)) { fprintf(stderr, "psnr: %s\n", err); return 1; }
  if (ev_yuv_map_open(&dist, distp, &g, err, sizeof err)) { fprintf(stderr, "psnr: %s\n", err); return 1; }
  size_t n = ref.frames;
  if (nlimit >= 0) {
    if ((size_t)nlimit > ref.frames || (size_t)nlimit > dist.frames) {
      fprintf(stderr, "psnr: -n %ld but %s has %zu frames and %s has %zu\n", nlimit, refp, ref.frames, distp, dist.frames);
      return 1;
    }
    n = (size_t)nlimit;
  } else if (common && ref.frames != dist.frames) {
    n = ref.frames < dist.frames ? ref.frames : dist.frames;
    fprintf(stderr, "psnr: warning: %s has %zu frames, %s has %zu: comparing the first %zu\n",
            refp, ref.frames, distp, dist.frames, n);
  } else if (ref.frames != dist.frames) {
    fprintf(stderr, "psnr: frame counts differ: %s has %zu frames of %dx%d %s, %s has %zu "
            "(compare a prefix explicitly with -n)\n", refp, ref.frames, w, h, fmt->name, distp, dist.frames);
    return 1;
  }
  if (n == 0) { fprintf(stderr, "psnr: %s: no frames\n", refp); return 1; }

  ev_frame_quality *q = calloc(n, sizeof *q);
  if (!q) { fprintf(stderr, "psnr: out of memory\n"); return 1; }
  ev_progress prog = { 0, 0 };
  prog.start = prog.last = ev_progress_now();
  ev_quality_run(&g, ref.data, dist.data, n, want_ssim, threads, q, show_progress ? progress : NULL, &prog);
  for (size_t i = 0; i < n; i++)
    if (q[i].out_of_range) {
      fprintf(stderr, "psnr: %s: frame %zu has samples above %d: not a %d-bit %s file\n",
              q[i].out_of_range & 1 ? refp : distp, i, (1 << fmt->bits) - 1, fmt->bits, fmt->name);
      return 1;
    }
  ev_quality_summary s;
  ev_quality_summarize(&g, q, n, &s);

  if (evalvid) {
    /* setvbuf: one write per 64 KiB, not per line */
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    for (size_t i = 0; i < n; i++) printf("%.3f\n", want_ssim ? q[i].ssim[0] : q[i].psnr[0]);
    fprintf(stderr, "Average: %.3f\n", want_ssim ? s.mean_ssim[0] : s.mean_db[0]);
  } else {
    if (csv) {
      FILE *f = fopen(csv, "w");
      if (!f) { fprintf(stderr, "psnr: %s: %s\n", csv, strerror(errno)); return 1; }
      fprintf(f, "frame,psnr_y,psnr_u,psnr_v,psnr_avg,mse_y,mse_u,mse_v,mse_avg%s\n",
              want_ssim ? ",ssim_y,ssim_u,ssim_v,ssim_all" : "");
      for (size_t i = 0; i < n; i++) {
        fprintf(f, "%zu,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f", i, q[i].psnr[0], q[i].psnr[1],
                q[i].psnr[2], q[i].psnr_avg, q[i].mse[0], q[i].mse[1], q[i].mse[2], q[i].mse_avg);
        if (want_ssim) fprintf(f, ",%.6f,%.6f,%.6f,%.6f", q[i].ssim[0], q[i].ssim[1], q[i].ssim[2], q[i].ssim_all);
        fputc('\n', f);
      }
      if (fclose(f)) { fprintf(stderr, "psnr: %s: write failed\n", csv); return 1; }
    }
    if (fflog) {
      FILE *f = fopen(fflog, "w");
      if (!f) { fprintf(stderr, "psnr: %s: %s\n", fflog, strerror(errno)); return 1; }
      for (size_t i = 0; i < n; i++)
        fprintf(f, "n:%zu mse_avg:%.2f mse_y:%.2f mse_u:%.2f mse_v:%.2f psnr_avg:%.2f psnr_y:%.2f "
                "psnr_u:%.2f psnr_v:%.2f\n", i + 1, q[i].mse_avg, q[i].mse[0], q[i].mse[1], q[i].mse[2],
                q[i].psnr_avg, q[i].psnr[0], q[i].psnr[1], q[i].psnr[2]);
      fclose(f);
    }
    printf("frames %zu  %dx%d %s  (PSNR cap %.0f dB)\n", n, w, h, fmt->name, EV_PSNR_CAP_DB);
    printf("psnr mean_db  y:%.4f u:%.4f v:%.4f avg:%.4f  min:%.4f max:%.4f\n", s.mean_db[0],
           s.mean_db[1], s.mean_db[2], s.mean_db[3], s.min_db, s.max_db);
    printf("psnr mse_db   y:%.4f u:%.4f v:%.4f avg:%.4f\n", s.db_of_mean_mse[0], s.db_of_mean_mse[1],
           s.db_of_mean_mse[2], s.db_of_mean_mse[3]);
    if (want_ssim)
      printf("ssim mean     y:%.6f u:%.6f v:%.6f all:%.6f\n", s.mean_ssim[0], s.mean_ssim[1],
             s.mean_ssim[2], s.mean_ssim[3]);
  }
  free(q);
  ev_yuv_map_close(&ref); ev_yuv_map_close(&dist);
  return 0;
}
