/* gstasmpsink-priv.h - asmpsink's instance and what its files share (private to the element):
 * gstasmpsink.c (packets, RTCP, lib/cc, state), gstasmpsink-props.c (the GObject properties),
 * gstasmpsink-fec.c (FEC). */
#ifndef GST_ASMP_SINK_PRIV_H
#define GST_ASMP_SINK_PRIV_H
#include "gstasmpsink.h"
#include "gstasmpsink-fec.h"
#include "../common/gstamcc.h"
#include "../common/gstamenc.h"
#include "../common/gstamnet.h"
#include "../common/gstampacer.h"
#include "../common/gstamsrtp.h"
#include "../common/gstamtrace.h"

G_BEGIN_DECLS

#define DEFAULT_INITIAL_BPS 500000
#define DEFAULT_MIN_BPS 64000
#define DEFAULT_MAX_BPS 20000000
#ifndef DEFAULT_PACING          /* -DDEFAULT_PACING=FALSE etc.: builds to compare settings */
#define DEFAULT_PACING TRUE
#endif
#ifndef DEFAULT_PACING_FACTOR
#define DEFAULT_PACING_FACTOR 1.5
#endif
#ifndef DEFAULT_MAX_PACING_DELAY_MS
#define DEFAULT_MAX_PACING_DELAY_MS 100
#endif
#ifndef DEFAULT_PACING_BURST_MS
#define DEFAULT_PACING_BURST_MS GST_AM_PACER_SLOT_MS
#endif

enum {
  PROP_0, PROP_ADDRESS, PROP_PORT, PROP_MULTICAST_IFACE, PROP_TTL_MC, PROP_LOOP,
  PROP_PROTOCOL, PROP_INITIAL_BITRATE, PROP_MIN_BITRATE, PROP_MAX_BITRATE,
  PROP_TARGET_BITRATE, PROP_ENCODER, PROP_RTCP_INTERVAL, PROP_MAX_SSRCS_PER_HOST,
  PROP_MAX_UNPROVEN_MEMBERS, PROP_TRACE_DIR, PROP_SDP_FILE,
  PROP_STATS, PROP_RECEIVER_TIMEOUT, PROP_PACING, PROP_PACING_FACTOR, PROP_MAX_PACING_DELAY,
  PROP_PACING_BURST, PROP_RATE_MATCH, PROP_INTRA_REFRESH,
  N_PROPS                       /* then the FEC properties (gstasmpsink-fec.c) */
};
#define PROP_SRTP_KEY 100       /* srtp-key (gst/common/gstamsrtp.c), after the FEC ones */
struct _GstAsmpSink {
  GstAmSessionBin parent;
  GstPad *sinkpad;
  GstElement *pacer;
  /* the base bin's (gst/common/gstamsessionbin.h): rtpbin and session 0's udpsinks and udpsrc */
  GstElement *rtpbin, *rtp_sink, *rtcp_sink, *rtcp_src;
  GObject *session;
  GstAmSrtp *srtp;              /* srtp-key: rtpbin's encoder and decoder (its own lock) */

  GMutex lock;
  GMutex *lockp;                /* everything below: &lock, or a group's (asspsimulcast) */
  const amcc_protocol *group_protocol;  /* set by a group: overrides `protocol` */
  GstAmNetConfig *net;          /* the base bin's */
  gint protocol;                /* GST_TYPE_AM_PROTOCOL: index into lib/cc's registry */
  guint initial_bps, min_bps, max_bps, target_bps;
  GstElement *encoder_prop;
  guint rtcp_interval_ms, receiver_timeout_ms;
  guint max_ssrcs_per_host, max_unproven_members;
  gchar *trace_dir, *sdp_file;
  gboolean pacing;
  gdouble pacing_factor;
  guint max_pacing_delay_ms;
  guint pacing_burst_ms;

  GstAmCcSender *cc;
  GstAmEncoder enc;
  GstAmTrace *sd, *rate;
  GstAmSendTrace send_trace;
  guint32 own_ssrc;
  GstStructure *stats;
  GstClockID early_id;

  /* FEC (gstasmpsink-fec.h): the bytes of parity count inside target_bps */
  GstAsmpSinkFec fec;
  guint media_bps;              /* the encoder's share: target x (1 - fec.share) */
};

/* gstasmpsink-props.c */
G_GNUC_INTERNAL void gst_asmp_sink_install_properties (GObjectClass * klass);
G_GNUC_INTERNAL void gst_asmp_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
G_GNUC_INTERNAL void gst_asmp_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
G_GNUC_INTERNAL void gst_asmp_sink_notify_target (GstAsmpSink * self);
G_GNUC_INTERNAL void configure_pacer_locked (GstAsmpSink * self);
/* gstasmpsink.c */
G_GNUC_INTERNAL gboolean update_target_locked (GstAsmpSink * self, gint64 now);
G_GNUC_INTERNAL void target_changed (GstAsmpSink * self, guint bps, GstAmEncKind kind);

G_END_DECLS
#endif
