/* gstamtrace.h - EvalVid-compatible traces (docs/run-directory.md): sd.txt / rd.txt packet
 * dumps with a wide packet id, the CSV state files, and frame typing from RTP payloads. */
#ifndef GST_AM_TRACE_H
#define GST_AM_TRACE_H
#include <gst/gst.h>
#include <stdio.h>
#include <amcc/seq.h>

G_BEGIN_DECLS

/* A line-buffered text file; every write is complete lines so a killed process leaves whole
 * lines behind. All functions accept NULL (tracing off). */
typedef struct {
  FILE *f;
  gchar *path;
} GstAmTrace;

/* Creates dir (with parents) and dir/name; writes header (may be NULL). NULL + error on failure. */
GstAmTrace *gst_am_trace_open (const gchar * dir, const gchar * name,
    const gchar * header, GError ** error);
void gst_am_trace_close (GstAmTrace * t);
/* Opens dir/name1 and dir/name2 (CSV with header2) or neither; FALSE + error on failure. */
gboolean gst_am_trace_open_pair (const gchar * dir, const gchar * name1, GstAmTrace ** t1,
    const gchar * name2, const gchar * header2, GstAmTrace ** t2, GError ** error);
/* The same; with append, existing files are extended (a header only into an empty file). */
GstAmTrace *gst_am_trace_open_full (const gchar * dir, const gchar * name,
    const gchar * header, gboolean append, GError ** error);
gboolean gst_am_trace_open_pair_full (const gchar * dir, const gchar * name1,
    GstAmTrace ** t1, const gchar * name2, const gchar * header2, GstAmTrace ** t2,
    gboolean append, GError ** error);
void gst_am_trace_flush (GstAmTrace * t);
void gst_am_trace_printf (GstAmTrace * t, const gchar * fmt, ...) G_GNUC_PRINTF (2, 3);

/* Wide packet id: (SSRC << 32) | extended sequence number. */
static inline guint64
gst_am_wide_id (guint32 ssrc, guint32 extseq)
{
  return ((guint64) ssrc << 32) | extseq;
}

/* sd.txt: TIME id N udp SIZE FRAME TYPE; rd.txt: TIME id N udp SIZE. TIME: gst_am_wall (now). */
void gst_am_trace_sd (GstAmTrace * t, gint64 now, guint64 id, gsize size,
    guint64 frame, gchar type);
void gst_am_trace_rd (GstAmTrace * t, gint64 now, guint64 id, gsize size);

/* Frame numbering and typing at the sender: a new RTP timestamp starts a new frame (FRAME is
 * 0-based); TYPE comes from the payload: H.264 (RFC 6184) IDR -> I, other slices -> P/B by
 * slice_type, parameter sets / SEI only -> H; VP8 (RFC 7741) key-frame bit -> I or P. */
typedef enum {
  GST_AM_CODEC_OTHER, GST_AM_CODEC_H264, GST_AM_CODEC_VP8
} GstAmCodec;
GstAmCodec gst_am_codec_from_caps (const GstCaps * caps);

typedef struct {
  GstAmCodec codec;
  gboolean started;
  guint32 rtp_ts;
  guint64 frame;
  gchar frame_type;       /* type of the current frame's slices so far, 0 = none yet */
  gboolean marker;        /* the previous packet ended an access unit (RTP marker bit) */
} GstAmFramer;

void gst_am_framer_init (GstAmFramer * fr, GstAmCodec codec);
/* Feeds one RTP packet's timestamp, marker bit and payload; returns the packet's TYPE and sets
 * *frame. A frame starts after a packet with the marker bit (RFC 6184 5.1, RFC 7741 4.1: the
 * last packet of an access unit) or at a new timestamp: two access units can share a
 * timestamp (a loaded live source stamped two frames alike; sd.txt then had one frame fewer
 * than sent.h264 and evalvid-rebuild refused the run). */
gchar gst_am_framer_packet (GstAmFramer * fr, guint32 rtp_ts, gboolean marker,
    const guint8 * payload, gsize len, guint64 * frame);

/* Type of an H.264 RTP payload (single NAL, STAP-A, FU-A start), 0 when it has no slice start
 * and no parameter set (continuation fragment); exposed for tests. */
gchar gst_am_h264_payload_type (const guint8 * p, gsize len);
gchar gst_am_vp8_payload_type (const guint8 * p, gsize len);

/* Everything asmpsink does to an RTP packet on its way out: extends the sequence number,
 * numbers and types the frame, adds the send-time and extseq header extensions, and writes the
 * sd.txt line (sd may be NULL). buf must be writable. Returns the packet size as sent. */
typedef struct {
  GstAmFramer framer;
  amcc_seq_ext seqext;    /* extended sequence numbers of what we send */
} GstAmSendTrace;
void gst_am_send_trace_reset (GstAmSendTrace * st, GstAmCodec codec);
/* New caps mid-stream: the frame and sequence counting continue. */
void gst_am_send_trace_set_codec (GstAmSendTrace * st, GstAmCodec codec);
gsize gst_am_send_trace_packet (GstAmSendTrace * st, GstAmTrace * sd, GstBuffer * buf,
    gint64 now);

/* rate.csv / stats.csv rows from the stats structures. */
void gst_am_trace_rate_row (GstAmTrace * t, const GstStructure * stats);
void gst_am_trace_stats_row (GstAmTrace * t, const GstStructure * stats);

G_END_DECLS
#endif
