/* gstamlayers.h - what avmrclayers and avmrcsrc share for layered sessions (AVMRC, lib/cc
 * amcc/avmrc.h): the temporal layer id (TID) of an RTP VP8 packet, the AVMRC stamp as an RTP
 * header extension, and the receiver's merge of the layers back into one RTP stream in decode
 * order. No congestion control here: lib/cc decides, the elements translate. */
#ifndef GST_AM_LAYERS_H
#define GST_AM_LAYERS_H
#include <gst/gst.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <amcc/avmrc.h>

G_BEGIN_DECLS

/* One-byte RTP header extension id of the AVMRC stamp (next to gstamnet.h's 1 and 2). */
#define GST_AM_EXT_ID_AVMRC 3
#define GST_AM_EXT_URI_AVMRC "urn:gst-amcast:avmrc-stamp"

/* The address of layer i: the IPv4 base address + i (239.1.3.1 -> 239.1.3.1, .2, ...); NULL
 * when base is not IPv4 or the last byte would pass 255. Its RTP port is port + 2 i. */
gchar *gst_am_layer_address (const gchar * base, guint i);

/* The avmrcsrc `protocol` property: the layered protocols of lib/cc's registry (value =
 * registry index, nick = name: avmrc, rmrc, vmrc). */
#define GST_TYPE_AM_LAYERED_PROTOCOL (gst_am_layered_protocol_get_type ())
GType gst_am_layered_protocol_get_type (void);
gint gst_am_layered_protocol_default (void);    /* avmrc */

/* The VP8 payload descriptor (RFC 7741 4.2) of an RTP payload: its temporal layer id. */
typedef enum {
  GST_AM_VP8_OK = 0,            /* *tid set (0 when the descriptor has no T bit) */
  GST_AM_VP8_TRUNCATED = -1,    /* the descriptor runs past the payload */
} GstAmVp8Result;
GstAmVp8Result gst_am_vp8_tid (const guint8 * payload, gsize len, guint * tid);
/* Does this payload start a frame (S = 1 and partition id 0)? FALSE when truncated. */
gboolean gst_am_vp8_frame_start (const guint8 * payload, gsize len);

/* Adds the stamp to a READWRITE-mapped RTP buffer; FALSE when it cannot be encoded or added. */
gboolean gst_am_avmrc_stamp_write (GstRTPBuffer * rtp, const amcc_avmrc_stamp * st);
/* 1: stamp read into *st; 0: the packet has none; < 0: rejected (an AMCC_ERR_* of the codec). */
gint gst_am_avmrc_stamp_read (GstRTPBuffer * rtp, amcc_avmrc_stamp * st);

/* ---- the receiver's merge ----
 * Packets of the subscribed layers go in as they arrive (each layer its own SSRC and sequence
 * space, every layer sharing the RTP clock of the source). Each frame (RTP timestamp) leaves
 * once `latency` has passed without a packet of it (a key frame spread by a slow bottleneck
 * is held as long as its packets keep coming; the frames behind it wait), whole, frames in timestamp order, within a frame
 * by layer sequence number, rewritten to one SSRC with continuous sequence numbers. A frame that
 * is not whole (no start, a gap, no marker: a loss or a join/leave in its middle) is dropped, and
 * so is a packet of a frame older than one already out: the decoder only gets whole frames in
 * decode order. Not thread safe (the element's lock). */
typedef struct _GstAmMerge GstAmMerge;

typedef struct {
  guint64 in, out;              /* packets */
  guint64 frames_out;
  guint64 frames_incomplete;    /* dropped: not whole */
  guint64 late;                 /* packets dropped: their frame was older than the output */
  guint64 bad;                  /* not RTP */
} GstAmMergeStats;

GstAmMerge *gst_am_merge_new (guint32 out_ssrc, GstClockTime latency);
void gst_am_merge_free (GstAmMerge * m);
/* Takes buf. Its layer's sequence numbers start afresh after gst_am_merge_reset_layer. */
void gst_am_merge_push (GstAmMerge * m, GstBuffer * buf, guint layer, gint64 now);
/* Frames due at now (all of them with flush) appended to out (GstBuffer *, rewritten). */
void gst_am_merge_pop (GstAmMerge * m, gint64 now, gboolean flush, GQueue * out);
/* A layer was joined or left: its next packet is not a gap. */
void gst_am_merge_reset_layer (GstAmMerge * m, guint layer);
const GstAmMergeStats *gst_am_merge_stats (GstAmMerge * m);

G_END_DECLS
#endif
