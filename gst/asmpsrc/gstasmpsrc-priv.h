/* gstasmpsrc-priv.h - asmpsrc's instance and what its files share (private to the element):
 * gstasmpsrc.c (packets, RTCP, lib/cc, state), gstasmpsrc-props.c (the GObject properties). */
#ifndef GST_ASMP_SRC_PRIV_H
#define GST_ASMP_SRC_PRIV_H
#include "gstasmpsrc.h"

#include "../common/gstamcc.h"
#include "../common/gstamnet.h"
#include "../common/gstamfec.h"
#include "../common/gstamtrace.h"
#include "../common/gstamsrtp.h"

#define DEFAULT_CAPS "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96"
#define DEFAULT_LATENCY_MS 200
/* never ask rtpsession for early RTCP more often than this (a refused request stays due) */
#define MIN_EARLY_GAP_NS (50 * GST_MSECOND)

enum {
  PROP_0, PROP_ADDRESS, PROP_PORT, PROP_MULTICAST_IFACE, PROP_RTCP_ADDRESS, PROP_TTL_MC,
  PROP_LOOP, PROP_PROTOCOL, PROP_CAPS, PROP_RTCP_INTERVAL, PROP_MAX_SSRCS_PER_HOST,
  PROP_MAX_UNPROVEN_MEMBERS, PROP_LATENCY,
  PROP_TRACE_DIR, PROP_STATS, PROP_FEC, PROP_FEC_ADDRESS, N_PROPS
};
#define PROP_SRTP_KEY N_PROPS   /* srtp-key (gst/common/gstamsrtp.c) */

struct _GstAsmpSrc {
  GstAmSessionBin parent;
  GstPad *srcpad;
  /* the base bin's (gst/common/gstamsessionbin.h): rtpbin and session 0's udpsrcs and udpsink */
  GstElement *rtpbin, *rtp_src, *rtcp_src, *rtcp_sink;
  GObject *session;
  GstAmSrtp *srtp;              /* srtp-key: rtpbin's encoder and decoder (its own lock) */

  GMutex lock;
  GMutex *lockp;                /* everything below: &lock, or a group's (asspsrc) */
  const amcc_protocol *group_protocol;  /* in a group: the receiver is the group's (cc lent) */
  GstAmNetConfig *net;          /* the base bin's */
  gchar *rtcp_address;
  gint protocol;                /* GST_TYPE_AM_PROTOCOL: index into lib/cc's registry */
  GstCaps *caps;
  guint rtcp_interval_ms, latency_ms;
  guint max_ssrcs_per_host, max_unproven_members;
  gchar *trace_dir;
  gboolean traced;              /* traces opened since trace-dir was set (a re-join appends) */

  GstAmCcReceiver *cc;
  GstAmTrace *rd, *stats_csv;
  GHashTable *seqext;           /* ssrc -> amcc_seq_ext, when the sender's extension is absent */
  guint32 own_ssrc;
  GstStructure *stats;
  GstClockID early_id;
  gint64 last_early;
  guint32 pli_ssrc;             /* a key frame to ask of this sender (RTCP PLI), 0 = none */
  guint32 said_ssrc;            /* the SSRC of our last RTCP: whose BYE we owe, 0 = none */
  gboolean left;                /* BYE sent: no more owed until the next start */
  gboolean fec;
  gchar *fec_address;
  GstAmFecRecv fecrx;
};

/* gstasmpsrc-props.c */
G_GNUC_INTERNAL void gst_asmp_src_install_properties (GObjectClass * klass);
G_GNUC_INTERNAL void gst_asmp_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
G_GNUC_INTERNAL void gst_asmp_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
#endif
