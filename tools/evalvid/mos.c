/* mos - MOS (ITU-R PSNR table) per frame, share of frames per class, mean and miv.
 * Also accepts EvalVid's command line: mos DIR REF_PSNR [window]. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ev_mos.h"

static void usage(FILE *f)
{
  fprintf(f,
"usage: mos [--ref REF] [--window N] [--per-frame OUT.csv] FILE...\n"
"       mos DIR REF_PSNR [window]        (EvalVid's command line: every file in DIR)\n"
"Maps per-frame PSNR to MOS: > 37 dB -> 5, > 31 -> 4, > 25 -> 3, > 20 -> 2, else 1 (a value\n"
"exactly on 37/31/25/20 is in the lower class). Inputs: one PSNR value per line (psnr's EvalVid\n"
"output; 'frame value' lines too), or the CSV of 'psnr -o' (its psnr_y column). No frame is\n"
"skipped.\n"
"  --ref FILE       PSNR of the reference (e.g. the lossless decode) for miv; default: MOS 5\n"
"  -w, --window N   miv window in frames (default 25)\n"
"  --per-frame FILE per-frame CSV (file,frame,psnr,mos) of every input\n"
"Prints, per input: frames, mean MOS, share of frames in each class (%%), and miv: the worst\n"
"window's percentage of frames whose MOS is below the reference's and below 4.\n");
}

/* Reads per-frame PSNR values; -1 with file:line on a bad line. */
static int read_psnr(const char *path, double **out, size_t *n)
{
  FILE *f = fopen(path, "r");
  if (!f) { fprintf(stderr, "mos: %s: %s\n", path, strerror(errno)); return -1; }
  char *line = NULL; size_t cap = 0, k = 0, acap = 0; unsigned ln = 0;
  double *a = NULL;
  int col = -1;                           /* CSV column of psnr_y, or -1: plain values */
  while (getline(&line, &cap, f) >= 0) {
    ln++;
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    if (ln == 1 && !strncmp(line, "frame,", 6)) {
      int c = 0;
      for (char *s = line, *t; (t = strsep(&s, ",")); c++) if (!strcmp(t, "psnr_y")) col = c;
      if (col < 0) { fprintf(stderr, "mos: %s:1: CSV without a psnr_y column\n", path); goto fail; }
      continue;
    }
    char *v = line, copy[256];
    snprintf(copy, sizeof copy, "%s", line);
    if (col >= 0) { char *s = line; for (int c = 0; c <= col && (v = strsep(&s, ",")); c++) ; }
    else {
      /* "value", or "frame value" (two columns): the value is the last field */
      char *tok[3] = { 0 }, *save = NULL;
      int nt = 0;
      for (char *t = strtok_r(line, " \t", &save); t && nt < 3; t = strtok_r(NULL, " \t", &save)) tok[nt++] = t;
      v = nt == 1 || nt == 2 ? tok[nt - 1] : NULL;
    }
    char *e = NULL;
    double x = v ? strtod(v, &e) : NAN;
    if (!v || e == v || *e || isnan(x)) {
      fprintf(stderr, "mos: %s:%u: not a PSNR value: '%s'\n", path, ln, copy); goto fail;
    }
    if (k == acap) { acap = acap ? 2 * acap : 1024; double *p = realloc(a, acap * sizeof *a); if (!p) goto fail; a = p; }
    a[k++] = x;
  }
  free(line); fclose(f);
  *out = a; *n = k;
  return 0;
fail:
  free(line); free(a); fclose(f);
  return -1;
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
  const char *refp = NULL, *perframe = NULL;
  long window = 25;
  char **files = NULL; size_t nfiles = 0;
  int own_files = 0;
  struct stat sb;
  if (argc >= 3 && argc <= 4 && stat(argv[1], &sb) == 0 && S_ISDIR(sb.st_mode)) {
    refp = argv[2];
    if (argc == 4 && ((window = strtol(argv[3], NULL, 10)) <= 0)) { fprintf(stderr, "mos: bad window '%s'\n", argv[3]); return 2; }
    DIR *d = opendir(argv[1]);
    if (!d) { fprintf(stderr, "mos: %s: %s\n", argv[1], strerror(errno)); return 1; }
    struct dirent *de;
    while ((de = readdir(d))) {
      char *p;
      if (asprintf(&p, "%s/%s", argv[1], de->d_name) < 0) return 1;
      struct stat fs;
      if (stat(p, &fs) || !S_ISREG(fs.st_mode) || !strcmp(de->d_name, refp)) { free(p); continue; }
      struct stat rs;
      if (stat(refp, &rs) == 0 && rs.st_ino == fs.st_ino && rs.st_dev == fs.st_dev) { free(p); continue; }
      files = realloc(files, (nfiles + 1) * sizeof *files);
      files[nfiles++] = p;
    }
    closedir(d);
    qsort(files, nfiles, sizeof *files, cmpstr);
    own_files = 1;
    if (!nfiles) { fprintf(stderr, "mos: %s: no files\n", argv[1]); return 1; }
  } else {
    static const struct option opts[] = { { "ref", 1, 0, 'r' }, { "window", 1, 0, 'w' },
      { "per-frame", 1, 0, 'F' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    int c;
    while ((c = getopt_long(argc, argv, "w:h", opts, NULL)) != -1) {
      if (c == 'r') refp = optarg;
      else if (c == 'w') { window = strtol(optarg, NULL, 10); if (window <= 0) { fprintf(stderr, "mos: bad window '%s'\n", optarg); return 2; } }
      else if (c == 'F') perframe = optarg;
      else if (c == 'h') { usage(stdout); return 0; }
      else { usage(stderr); return 2; }
    }
    if (optind >= argc) { usage(stderr); return 2; }
    files = argv + optind; nfiles = (size_t)(argc - optind);
  }
  double *ref = NULL; size_t nref = 0;
  if (refp && read_psnr(refp, &ref, &nref)) return 1;
  /* read every input first: a bad file is reported before any table is printed */
  double **vals = calloc(nfiles, sizeof *vals);
  size_t *nvals = calloc(nfiles, sizeof *nvals);
  if (!vals || !nvals) return 1;
  for (size_t i = 0; i < nfiles; i++) {
    if (read_psnr(files[i], &vals[i], &nvals[i])) return 1;
    if (ref && nref != nvals[i]) {
      fprintf(stderr, "mos: %s has %zu frames but the reference %s has %zu\n", files[i], nvals[i], refp, nref);
      return 1;
    }
  }
  FILE *pf = NULL;
  if (perframe && !(pf = fopen(perframe, "w"))) { fprintf(stderr, "mos: %s: %s\n", perframe, strerror(errno)); return 1; }
  if (pf) fprintf(pf, "file,frame,psnr,mos\n");
  printf("%-24s %7s %5s %6s %6s %6s %6s %6s %8s\n", "file", "frames", "mos", "5%", "4%", "3%", "2%", "1%", "miv%");
  for (size_t i = 0; i < nfiles; i++) {
    double *p = vals[i]; size_t n = nvals[i];
    ev_mos_stats s;
    ev_mos_compute(p, ref, n, (size_t)window, &s);
    const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
    printf("%-24s %7zu %5.2f %6.1f %6.1f %6.1f %6.1f %6.1f %8.1f\n", base, n, s.mean, 100 * s.share[5],
           100 * s.share[4], 100 * s.share[3], 100 * s.share[2], 100 * s.share[1], s.miv_worst);
    if (pf) for (size_t k = 0; k < n; k++) fprintf(pf, "%s,%zu,%.4f,%d\n", base, k, p[k], ev_mos_from_psnr(p[k]));
    free(p);
  }
  if (pf && fclose(pf)) { fprintf(stderr, "mos: %s: write failed\n", perframe); return 1; }
  free(ref); free(vals); free(nvals);
  if (own_files) { for (size_t i = 0; i < nfiles; i++) free(files[i]); free(files); }
  return 0;
}
