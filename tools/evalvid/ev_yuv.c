/* ev_yuv.c - raw planar YUV formats and read-only mapped YUV files. */
#define _GNU_SOURCE
#include "ev_yuv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const ev_yuv_format formats[] = {
  { "yuv420p", "I420", 8, 3, 1, 1 },
  { "yuv422p", "Y42B", 8, 3, 1, 0 },
  { "yuv444p", "Y444", 8, 3, 0, 0 },
  { "gray", "GRAY8", 8, 1, 0, 0 },
  { "yuv420p10le", "I420_10LE", 10, 3, 1, 1 },
  { "yuv420p12le", "I420_12LE", 12, 3, 1, 1 },
  { "yuv422p10le", "I422_10LE", 10, 3, 1, 0 },
  { "yuv444p10le", "Y444_10LE", 10, 3, 0, 0 },
  { "yuv420p16le", NULL, 16, 3, 1, 1 },
};

const ev_yuv_format *ev_yuv_format_find(const char *name)
{
  static const struct { const char *code; int idx; } evalvid[] = {
    { "420", 0 }, { "422", 1 }, { "444", 2 }, { "400", 3 }, { "i420", 0 } };
  for (size_t i = 0; i < sizeof evalvid / sizeof evalvid[0]; i++)
    if (!strcasecmp(name, evalvid[i].code)) return &formats[evalvid[i].idx];
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (!strcasecmp(name, formats[i].name) || (formats[i].alias && !strcasecmp(name, formats[i].alias)))
      return &formats[i];
  return NULL;
}

const char *ev_yuv_format_names(void)
{
  return "yuv420p (I420, 420), yuv422p (422), yuv444p (444), gray (400), yuv420p10le (I420_10LE), "
         "yuv420p12le, yuv422p10le, yuv444p10le, yuv420p16le";
}

int ev_yuv_geom_init(ev_yuv_geom *g, const ev_yuv_format *fmt, int w, int h)
{
  if (!fmt || w <= 0 || h <= 0 || w > 65536 || h > 65536) return -1;
  memset(g, 0, sizeof *g);
  g->fmt = fmt; g->w = w; g->h = h;
  g->bps = fmt->bits > 8 ? 2 : 1;
  size_t off = 0;
  for (int p = 0; p < fmt->planes; p++) {
    int sw = p ? fmt->cw_shift : 0, sh = p ? fmt->ch_shift : 0;
    g->pw[p] = (w + (1 << sw) - 1) >> sw;      /* ceil, as FFmpeg's AV_CEIL_RSHIFT */
    g->ph[p] = (h + (1 << sh) - 1) >> sh;
    g->off[p] = off;
    off += (size_t)g->pw[p] * g->ph[p] * g->bps;
  }
  g->frame_bytes = off;
  return 0;
}

int ev_yuv_map_open(ev_yuv_map *m, const char *path, const ev_yuv_geom *g, char *err, size_t errlen)
{
  memset(m, 0, sizeof *m);
  int fd = open(path, O_RDONLY);
  if (fd < 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
  struct stat st;
  if (fstat(fd, &st) < 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); close(fd); return -1; }
  size_t bytes = (size_t)st.st_size;
  if (bytes % g->frame_bytes) {
    snprintf(err, errlen, "%s: %zu bytes is not a whole number of %dx%d %s frames (%zu bytes each): "
             "%zu whole frames and a truncated one of %zu bytes", path, bytes, g->w, g->h,
             g->fmt->name, g->frame_bytes, bytes / g->frame_bytes, bytes % g->frame_bytes);
    close(fd); return -1;
  }
  if (bytes) {
    void *p = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) { snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno)); close(fd); return -1; }
    madvise(p, bytes, MADV_SEQUENTIAL);   /* read-ahead; pages are touched once */
    m->data = p;
  }
  close(fd);
  m->bytes = bytes;
  m->frames = bytes / g->frame_bytes;
  return 0;
}

void ev_yuv_map_close(ev_yuv_map *m)
{
  if (m->data) munmap((void *)m->data, m->bytes);
  memset(m, 0, sizeof *m);
}

void ev_yuv_fill_black(uint8_t *frame, const ev_yuv_geom *g)
{
  int shift = g->fmt->bits - 8;
  for (int p = 0; p < g->fmt->planes; p++) {
    unsigned v = (p ? 128u : 16u) << shift;
    size_t n = (size_t)g->pw[p] * g->ph[p];
    uint8_t *d = frame + g->off[p];
    if (g->bps == 1) memset(d, (int)v, n);
    else for (size_t i = 0; i < n; i++) { d[2 * i] = v & 0xff; d[2 * i + 1] = v >> 8; }
  }
}
