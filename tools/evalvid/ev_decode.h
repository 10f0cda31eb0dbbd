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

/* Pushes AU i for every i < n with feed[i] (the frames the receiver got, in frame order).
 * Returns the number of pictures delivered, or -1 with a message in err. */
long ev_decode_h264(const uint8_t *stream, const ev_au *au, size_t n, const bool *feed,
                    const ev_yuv_geom *g, ev_picture_fn cb, void *user, char *err, size_t errlen);
#endif
