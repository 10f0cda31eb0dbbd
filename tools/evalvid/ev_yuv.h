/* ev_yuv.h - raw planar YUV formats and read-only mapped YUV files. */
#ifndef EV_YUV_H
#define EV_YUV_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const char *name;   /* FFmpeg pix_fmt name, e.g. "yuv420p" */
  const char *alias;  /* GStreamer name, e.g. "I420" */
  int bits;           /* bit depth per sample: 8 -> 1 byte, >8 -> 2 bytes little endian */
  int planes;         /* 1 (gray) or 3 */
  int cw_shift, ch_shift; /* chroma subsampling: plane size = ceil(w >> cw_shift) */
} ev_yuv_format;

/* Finds a format by FFmpeg or GStreamer name (case-insensitive) or EvalVid code ("400", "420",
 * "422", "444"); NULL if unknown. */
const ev_yuv_format *ev_yuv_format_find(const char *name);
/* Lists the accepted names (for --help and errors). */
const char *ev_yuv_format_names(void);

typedef struct {
  const ev_yuv_format *fmt;
  int w, h;
  int pw[3], ph[3];       /* plane sizes in samples */
  size_t off[3];          /* plane offsets in bytes within a frame */
  size_t frame_bytes;
  int bps;                /* bytes per sample */
} ev_yuv_geom;

int ev_yuv_geom_init(ev_yuv_geom *g, const ev_yuv_format *fmt, int w, int h);

typedef struct {
  const uint8_t *data;
  size_t bytes;
  size_t frames;
} ev_yuv_map;

/* Maps PATH read-only; fails (message in err) if the size is not a whole number of frames. */
int ev_yuv_map_open(ev_yuv_map *m, const char *path, const ev_yuv_geom *g, char *err, size_t errlen);
void ev_yuv_map_close(ev_yuv_map *m);

/* Fills one frame with black (Y at the bottom of video range, chroma mid-scale). */
void ev_yuv_fill_black(uint8_t *frame, const ev_yuv_geom *g);
#endif
