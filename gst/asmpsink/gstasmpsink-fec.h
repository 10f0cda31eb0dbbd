/* gstasmpsink-fec.h - asmpsink's FEC (fec=off|auto|fixed, SMPTE 2022-1), private to the element:
 * its five properties, the matrix asked for at each target update, the counters the parity's
 * share of the bytes is measured from, and its stats fields. lib/cc/fec.c decides (the matrix for
 * the worst reported loss, the share of the target parity takes); gst/common/gstamfec.c moves
 * the packets. Everything is guarded by the element's lock except gst_asmp_sink_fec_before. */
#ifndef GST_ASMP_SINK_FEC_H
#define GST_ASMP_SINK_FEC_H
#include <gst/gst.h>
#include <amcc/fec.h>
#include "../common/gstamcc.h"
#include "../common/gstamfec.h"
#include "../common/gstamtrace.h"

G_BEGIN_DECLS

typedef struct {
  GstObject *owner;             /* the element, for the log (not ref'd) */
  /* properties */
  gint mode;                    /* GstAmFecMode */
  gchar *address;
  guint columns, rows;          /* fixed mode */
  /* while running */
  GstAmFecSend send;
  amcc_fec_params params;
  amcc_fec_choice choice;       /* auto: the last choice */
  gdouble share;                /* FEC's share of the target (the encoder gets the rest) */
  gdouble byte_share;           /* parity bytes / all bytes over the last RTCP interval */
  guint64 fec_bytes_then, media_bytes, media_bytes_then;
  gdouble worst_loss;
  gdouble need;                 /* amcc_fec_need of worst_loss at pps */
  GstAmTrace *trace;            /* trace-dir/fec.csv, one row per RTCP interval (or NULL) */
  gint64 pps_start;             /* media packet rate over ~1 s windows */
  guint pps_count;
  gdouble pps;
} GstAsmpSinkFec;

void gst_asmp_sink_fec_init (GstAsmpSinkFec * f, GstObject * owner);
void gst_asmp_sink_fec_clear (GstAsmpSinkFec * f);
/* fec, fec-address, fec-columns, fec-rows, fec-max-delay, with property ids first_id ..
 * first_id + 4. */
void gst_asmp_sink_fec_install_properties (GObjectClass * klass, guint first_id);
/* FALSE when pspec is not one of the five. */
gboolean gst_asmp_sink_fec_set_property (GstAsmpSinkFec * f, GParamSpec * pspec,
    const GValue * value);
gboolean gst_asmp_sink_fec_get_property (GstAsmpSinkFec * f, GParamSpec * pspec,
    GValue * value);
/* NULL->READY: checks the settings and puts the encoder after rtpbin's RTP out (fec != off),
 * its parity tagged under key (srtp-key's bytes, NULL: untagged), and opens trace_dir/fec.csv
 * (fec != off, trace_dir not NULL); FALSE with an error posted on sink. Restarts the counters. */
gboolean gst_asmp_sink_fec_start (GstAsmpSinkFec * f, GstElement * sink, GstElement * rtpbin,
    const GstAmNetConfig * net, GBytes * key, const gchar * trace_dir, gint64 now);
/* Closes fec.csv. */
void gst_asmp_sink_fec_stop (GstAsmpSinkFec * f);
/* FEC's share of the target now; fec=auto first asks lib/cc for the matrix for the worst loss
 * the receivers report (applied at a key frame). */
gdouble gst_asmp_sink_fec_share (GstAsmpSinkFec * f, GstAmCcSender * cc, gint64 now);
/* Every media packet leaving rtpbin: the packet rate and the media bytes. */
void gst_asmp_sink_fec_on_rtp (GstAsmpSinkFec * f, gsize size, gint64 now);
/* Then, without the element's lock (fec != off): the packet goes to the FEC encoder. */
void gst_asmp_sink_fec_before (GstAsmpSinkFec * f, GstBuffer * buf, GstAmCodec codec);
/* At each regular RTCP packet: the parity's share of the bytes since the last one. */
void gst_asmp_sink_fec_on_interval (GstAsmpSinkFec * f);
/* The fec-* fields of asmpsink-stats (none with fec=off), and their fec.csv row. */
void gst_asmp_sink_fec_add_stats (GstAsmpSinkFec * f, GstStructure * stats, guint media_bps);

G_END_DECLS
#endif
