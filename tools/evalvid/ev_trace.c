/* ev_trace.c - readers for sd, rd and st traces. */
#define _GNU_SOURCE
#include "ev_trace.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXTOK 8

/* Splits LINE in place on blanks; returns the number of tokens (at most MAXTOK + 1). */
static int split(char *line, char **tok)
{
  int n = 0;
  char *save, *p = strtok_r(line, " \t\r\n", &save);
  while (p && n <= MAXTOK) { tok[n++] = p; p = strtok_r(NULL, " \t\r\n", &save); }
  return n;
}

static int skip_line(const char *l)
{
  while (isspace((unsigned char)*l)) l++;
  return *l == 0 || *l == '#';
}

static int num_d(const char *s, double *v)
{
  char *e; errno = 0;
  *v = strtod(s, &e);
  return e != s && !*e && !errno && isfinite(*v) ? 0 : -1;
}

static int num_u64(const char *s, uint64_t *v)
{
  char *e; errno = 0;
  if (*s == '-') return -1;
  *v = strtoull(s, &e, 10);
  return e != s && !*e && !errno ? 0 : -1;
}

static int num_u32(const char *s, uint32_t *v)
{
  uint64_t x;
  if (num_u64(s, &x) || x > UINT32_MAX) return -1;
  *v = (uint32_t)x;
  return 0;
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
  if (n < *cap) return 0;
  size_t c = *cap ? *cap * 2 : 4096;
  void *p = realloc(*arr, c * elem);
  if (!p) return -1;
  *arr = p; *cap = c;
  return 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)
/* A bad line is an error, except an unterminated last line: a trace cut off mid-write when its
 * writer was killed; that one is reported on stderr and ignored. */
#define LINE_FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); \
  if (unterminated) { fprintf(stderr, "warning: %s (unterminated last line, ignored)\n", err); goto done; } \
  goto fail; } while (0)

int ev_read_sd(const char *path, ev_sd_pkt **out, size_t *n, char *err, size_t errlen)
{
  FILE *f = fopen(path, "r");
  if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
  ev_sd_pkt *a = NULL; size_t cap = 0, k = 0; uint32_t ln = 0;
  char *line = NULL; size_t lcap = 0;
  int cols = 0;
  ssize_t got;
  while ((got = getline(&line, &lcap, f)) >= 0) {
    int unterminated = got > 0 && line[got - 1] != '\n';
    ln++;
    if (skip_line(line)) continue;
    char *tok[MAXTOK + 1];
    int nt = split(line, tok);
    ev_sd_pkt p = { .frame = -1, .type = '?', .line = ln };
    if ((nt != 5 && nt != 7) || strcmp(tok[1], "id") || strcmp(tok[3], "udp"))
      LINE_FAIL("%s:%u: not a sender-dump line (want 'TIME id N udp SIZE [FRAME TYPE]')", path, ln);
    if (num_d(tok[0], &p.t)) LINE_FAIL("%s:%u: bad time '%s'", path, ln, tok[0]);
    if (num_u64(tok[2], &p.id)) LINE_FAIL("%s:%u: bad packet id '%s'", path, ln, tok[2]);
    if (num_u32(tok[4], &p.size)) LINE_FAIL("%s:%u: bad size '%s'", path, ln, tok[4]);
    int c = nt;
    if (nt == 7 && isdigit((unsigned char)tok[6][0])) c = 5;  /* Evalvid-RA: "Q type" columns */
    if (c == 7) {
      uint32_t fr;
      if (num_u32(tok[5], &fr) || fr > INT32_MAX) LINE_FAIL("%s:%u: bad frame number '%s'", path, ln, tok[5]);
      if (strlen(tok[6]) != 1 || !strchr("HIPB", tok[6][0]))
        LINE_FAIL("%s:%u: bad frame type '%s' (want H, I, P or B)", path, ln, tok[6]);
      p.frame = (int32_t)fr; p.type = tok[6][0];
    }
    if (cols && c != cols) LINE_FAIL("%s:%u: %d columns after lines of %d", path, ln, c, cols);
    cols = c;
    if (grow((void **)&a, &cap, k, sizeof *a)) FAIL("%s: out of memory", path);
    a[k++] = p;
  }
  if (ferror(f)) FAIL("%s: read error", path);
done:
  free(line); fclose(f);
  *out = a; *n = k;
  return 0;
fail:
  free(line); free(a); fclose(f);
  return -1;
}

int ev_read_rd(const char *path, ev_rd_pkt **out, size_t *n, char *err, size_t errlen)
{
  FILE *f = fopen(path, "r");
  if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
  ev_rd_pkt *a = NULL; size_t cap = 0, k = 0; uint32_t ln = 0;
  char *line = NULL; size_t lcap = 0;
  ssize_t got;
  while ((got = getline(&line, &lcap, f)) >= 0) {
    int unterminated = got > 0 && line[got - 1] != '\n';
    ln++;
    if (skip_line(line)) continue;
    char *tok[MAXTOK + 1];
    int nt = split(line, tok);
    ev_rd_pkt p = { .line = ln };
    if (nt != 5 || strcmp(tok[1], "id") || (strcmp(tok[3], "udp") && strcmp(tok[3], "lost")))
      LINE_FAIL("%s:%u: not a receiver-dump line (want 'TIME id N udp SIZE')", path, ln);
    if (num_d(tok[0], &p.t)) LINE_FAIL("%s:%u: bad time '%s'", path, ln, tok[0]);
    if (num_u64(tok[2], &p.id)) LINE_FAIL("%s:%u: bad packet id '%s'", path, ln, tok[2]);
    if (num_u32(tok[4], &p.size)) LINE_FAIL("%s:%u: bad size '%s'", path, ln, tok[4]);
    if (!strcmp(tok[3], "lost")) continue;
    if (grow((void **)&a, &cap, k, sizeof *a)) FAIL("%s: out of memory", path);
    a[k++] = p;
  }
  if (ferror(f)) FAIL("%s: read error", path);
done:
  free(line); fclose(f);
  *out = a; *n = k;
  return 0;
fail:
  free(line); free(a); fclose(f);
  return -1;
}

int ev_read_st(const char *path, ev_st_frame **out, size_t *n, char *err, size_t errlen)
{
  FILE *f = fopen(path, "r");
  if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
  ev_st_frame *a = NULL; size_t cap = 0, k = 0; uint32_t ln = 0;
  char *line = NULL; size_t lcap = 0;
  ssize_t got;
  while ((got = getline(&line, &lcap, f)) >= 0) {
    int unterminated = got > 0 && line[got - 1] != '\n';
    ln++;
    if (skip_line(line)) continue;
    char *tok[MAXTOK + 1];
    int nt = split(line, tok);
    ev_st_frame s;
    uint32_t fr;
    if (nt != 5) LINE_FAIL("%s:%u: not a video-trace line (want 'frameNo type size nPackets sendTime')", path, ln);
    if (num_u32(tok[0], &fr) || fr > INT32_MAX) LINE_FAIL("%s:%u: bad frame number '%s'", path, ln, tok[0]);
    if (strlen(tok[1]) != 1 || !strchr("HIPB", tok[1][0])) LINE_FAIL("%s:%u: bad frame type '%s'", path, ln, tok[1]);
    if (num_u64(tok[2], &s.size)) LINE_FAIL("%s:%u: bad size '%s'", path, ln, tok[2]);
    if (num_u32(tok[3], &s.packets)) LINE_FAIL("%s:%u: bad packet count '%s'", path, ln, tok[3]);
    if (num_d(tok[4], &s.send)) LINE_FAIL("%s:%u: bad send time '%s'", path, ln, tok[4]);
    s.frame = (int32_t)fr; s.type = tok[1][0];
    if (grow((void **)&a, &cap, k, sizeof *a)) FAIL("%s: out of memory", path);
    a[k++] = s;
  }
  if (ferror(f)) FAIL("%s: read error", path);
done:
  free(line); fclose(f);
  *out = a; *n = k;
  return 0;
fail:
  free(line); free(a); fclose(f);
  return -1;
}

int ev_sd_assign_frames(ev_sd_pkt *sd, size_t n, const ev_st_frame *st, size_t nst,
                        const char *sdpath, char *err, size_t errlen)
{
  size_t k = 0;
  for (size_t f = 0; f < nst; f++)
    for (uint32_t j = 0; j < st[f].packets; j++, k++) {
      if (k >= n) {
        snprintf(err, errlen, "%s: %zu packets, but the video trace lists more (frame %d)", sdpath, n, st[f].frame);
        return -1;
      }
      sd[k].frame = st[f].frame; sd[k].type = st[f].type;
    }
  if (k != n) {
    snprintf(err, errlen, "%s:%u: packet %zu is beyond the %zu packets of the video trace", sdpath, sd[k].line, k + 1, k);
    return -1;
  }
  return 0;
}

static int cmp_idx(const void *a, const void *b, void *arg)
{
  const ev_sd_pkt *sd = arg;
  uint64_t x = sd[*(const size_t *)a].id, y = sd[*(const size_t *)b].id;
  return x < y ? -1 : x > y;
}

int ev_match_arrivals(const ev_sd_pkt *sd, size_t nsd, const ev_rd_pkt *rd, size_t nrd,
                      const char *sdpath, const char *rdpath, double *arrival,
                      size_t *duplicates,
                      char *err, size_t errlen)
{
  size_t *idx = malloc(sizeof *idx * (nsd ? nsd : 1));
  if (!idx) { snprintf(err, errlen, "out of memory"); return -1; }
  for (size_t i = 0; i < nsd; i++) { idx[i] = i; arrival[i] = NAN; }
  qsort_r(idx, nsd, sizeof *idx, cmp_idx, (void *)sd);
  for (size_t i = 1; i < nsd; i++)
    if (sd[idx[i]].id == sd[idx[i - 1]].id) {
      size_t a = idx[i] < idx[i - 1] ? idx[i] : idx[i - 1], b = idx[i] ^ idx[i - 1] ^ a;
      snprintf(err, errlen, "%s:%u: packet id %llu already sent at line %u (ids must be unique)",
               sdpath, sd[b].line, (unsigned long long)sd[b].id, sd[a].line);
      free(idx); return -1;
    }
  size_t dup = 0;
  for (size_t r = 0; r < nrd; r++) {
    size_t lo = 0, hi = nsd;
    while (lo < hi) { size_t mid = (lo + hi) / 2; if (sd[idx[mid]].id < rd[r].id) lo = mid + 1; else hi = mid; }
    if (lo == nsd || sd[idx[lo]].id != rd[r].id) {
      snprintf(err, errlen, "%s:%u: packet id %llu matches no packet of the sender dump "
               "(a trace of another stream or run?)", rdpath, rd[r].line, (unsigned long long)rd[r].id);
      free(idx); return -1;
    }
    double *a = &arrival[idx[lo]];
    if (isnan(*a)) *a = rd[r].t;
    else { dup++; if (rd[r].t < *a) *a = rd[r].t; }
  }
  free(idx);
  if (duplicates) *duplicates = dup;
  return 0;
}
