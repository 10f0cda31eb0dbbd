/* gstamauth.h - a message authentication tag with replay protection for what SRTP does not
 * cover: the SMPTE 2022-1 FEC packets (gstamfec.c) and RMANP (gstamrmanp.c). Transport glue,
 * written once; lib/cc never sees the trailer.
 *
 * Every protected datagram gets an 18-byte trailer:
 *
 *   packet | sender id (4) | counter (4) | tag (10)          (ids and counters big-endian)
 *
 *   tag = the first 10 bytes of HMAC-SHA-256 (K_label, packet | sender id | counter)
 *   K_label = HMAC-SHA-256 (group key, "gst-amcast auth v1 " label)
 *
 * The group key is srtp-key's 30 bytes (one key serves SRTP and every label); a packet tagged
 * under one label (say RMANP data going down) fails under every other (control going up, FEC).
 * The sender id is random per protecting GstAmAuth and drawn again when its counter wraps.
 *
 * Replay: per sender id the highest counter accepted and a GST_AM_AUTH_WINDOW-packet window
 * below it; a counter seen already, or older than the window, is refused. At most
 * GST_AM_AUTH_SENDERS ids are remembered (the least recently accepted is forgotten first). The
 * first packet of an id not remembered is taken whatever its counter: a checker that has just
 * started (or forgot the id) takes one replayed packet per counter still inside the window of
 * that first one. Thread-safe (an internal lock). */
#ifndef GST_AM_AUTH_H
#define GST_AM_AUTH_H
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_AM_AUTH_TAG_BYTES 10
#define GST_AM_AUTH_TRAILER (8 + GST_AM_AUTH_TAG_BYTES)
#define GST_AM_AUTH_WINDOW 256          /* counters below the highest still taken once */
#define GST_AM_AUTH_SENDERS 64          /* sender ids remembered per checker */

typedef struct _GstAmAuth GstAmAuth;

typedef enum {
  GST_AM_AUTH_OK,
  GST_AM_AUTH_SHORT,            /* shorter than the trailer */
  GST_AM_AUTH_BAD_TAG,          /* forged, altered, untagged, another key or label */
  GST_AM_AUTH_REPLAY            /* a counter of that sender seen already or too old */
} GstAmAuthResult;

/* The 30-byte key from 60 hex digits (NULL or "" = off: TRUE with *key NULL); FALSE with a
 * message naming prop and the length or the position (never the key). */
gboolean gst_am_auth_parse_key (const gchar * prop, const gchar * hex, GBytes ** key,
    GError ** err);

/* One direction of one kind of packet: protect with it, or check with it (not both). */
GstAmAuth *gst_am_auth_new (GBytes * key, const gchar * label);
void gst_am_auth_free (GstAmAuth * a);
/* Appends the trailer to buf[0, len): buf must hold len + GST_AM_AUTH_TRAILER. New length. */
gsize gst_am_auth_protect (GstAmAuth * a, guint8 * buf, gsize len);
/* Checks a datagram; GST_AM_AUTH_OK with *plain_len = its length without the trailer. */
GstAmAuthResult gst_am_auth_check (GstAmAuth * a, const guint8 * buf, gsize len,
    gsize * plain_len);

/* The same for a GstBuffer: protect appends the trailer (a writable buffer back); check
 * returns the buffer without it (a new one, transfer full), NULL when refused (*res says why). */
GstBuffer *gst_am_auth_protect_buffer (GstAmAuth * a, GstBuffer * buf);
GstBuffer *gst_am_auth_check_buffer (GstAmAuth * a, GstBuffer * buf, GstAmAuthResult * res);

G_END_DECLS
#endif
