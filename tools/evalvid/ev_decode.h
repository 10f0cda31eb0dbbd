/* ev_decode.h - decodes chosen access units of an H.264 stream with GStreamer
 * (appsrc ! h264parse ! avdec_h264 ! videoconvert ! appsink), keeping frame alignment by
 * timestamps: AU i is pushed with PTS = i * frame duration and every output picture is mapped
 * back to i from its PTS, never by counting outputs. */
#ifndef EV_DECODE_H
#define EV_DECODE_H
#include <stdbool.h>
#include <stdint.h>
#include "ev_h264.h"
#include "ev_yuv.h"

/* Called once per decoded picture, in decoding order: frame index and the packed planar frame
 * (g->frame_bytes). Return non-zero to abort. */
typedef int (*ev_picture_fn)(size_t frame, const uint8_t *data, void *user);

enum { EV_FEED_NONE, EV_FEED_AU, EV_FEED_SLICES, EV_FEED_BYTES };
typedef struct { const uint8_t *data; size_t len; } ev_chunk;
/* Pushes, for every i < n, AU i whole (feed[i] == EV_FEED_AU), its slices only (EV_FEED_SLICES:
 * its header packets were lost) or the bytes given[i] (EV_FEED_BYTES: what arrived of a damaged
 * frame, see ev_h264_received; GIVEN may be NULL if no frame uses it), in frame order. THREADS:
 * avdec_h264 max-threads (0 = its default, one per core; concealed pictures depend on it, see
 * docs/evalvid.md). Returns the number of pictures delivered, or -1 with a message in err. */
long ev_decode_h264(const uint8_t *stream, const ev_au *au, size_t n, const uint8_t *feed,
                    const ev_chunk *given, int threads,
                    const ev_yuv_geom *g, ev_picture_fn cb, void *user, char *err, size_t errlen);
#endif
