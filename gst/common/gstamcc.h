/* gstamcc.h - glue between the elements and lib/cc's controller interface (amcc/controller.h):
 * translates RTCP buffers (gst_rtcp_buffer parsing, APP packets appended within the RTCP MTU)
 * and RTP packet facts into amcc_sender / amcc_receiver calls, keeps counters, and builds the
 * stats structures. It knows no protocol: lib/cc's registry does (the `protocol` enum is made
 * from it), and no congestion-control policy lives here. Not thread safe: the element
 * serialises calls with its own lock. Times are gst_am_now() ns. */
#ifndef GST_AM_CC_H
#define GST_AM_CC_H
#include <gst/gst.h>
#include <amcc/controller.h>
#include "gstamnet.h"
#include "gstamguard.h"

G_BEGIN_DECLS

/* The elements' `protocol` property: a GEnum over lib/cc's registry (value = registry index,
 * nick = protocol name, e.g. "asmp", "tfmcc"). */
#define GST_AM_PROTOCOL_DEFAULT 0       /* the registry's first: asmp */
#define GST_TYPE_AM_PROTOCOL (gst_am_protocol_get_type ())
GType gst_am_protocol_get_type (void);
const amcc_protocol *gst_am_protocol_get (gint value);
/* A property blurb that lists an enum's nicks ("a, b or c") between lead and tail, e.g.
 * the protocols the registry accepts, so it never omits one. Built once per call site's
 * arguments and kept for the life of the process (G_PARAM_STATIC_STRINGS may take it). */
const gchar *gst_am_enum_blurb (GType enum_type, const gchar * lead, const gchar * tail);
/* The rtpbin "rtp-profile" (GstRTPProfile) the protocol asks for. */
gint gst_am_protocol_rtp_profile (const amcc_protocol * p);

typedef struct {
  const amcc_protocol *protocol;
  guint initial_bps, min_bps, max_bps;
  guint rtcp_interval_ms;
  guint receiver_timeout_ms;      /* sender: forget silent receivers; 0 = lib/cc's default */
  guint clock_rate;               /* receiver: RTP clock rate of the stream */
  guint max_ssrcs_per_host;       /* RTCP SSRCs one source address may bind, 0 = no limit */
  guint max_unproven_members;     /* RTCP SSRCs not yet proven to receive us, 0 = no limit */
} GstAmCcConfig;

typedef struct {
  guint64 rtcp_in;                /* compound RTCP packets received (own loopback excluded) */
  guint64 rtcp_malformed;         /* failed RTCP validation */
  guint64 app_in;                 /* APP packets of our protocol */
  guint64 app_malformed;          /* ours by name, but the payload did not decode */
  guint64 app_foreign;            /* other names: ignored */
  guint64 app_sent;               /* APP packets we appended */
  guint64 app_no_room;            /* could not append: RTCP MTU reached */
  guint64 app_unproven;           /* from an SSRC that has not proven reception yet */
  guint64 app_excluded;           /* from a receiver the application excluded */
  guint64 rtcp_spoofed;           /* dropped: spoke for an SSRC bound to another address */
  guint64 rtcp_ssrc_full;         /* dropped: a new SSRC with the binding table full */
  guint64 rtcp_host_full;         /* dropped: a new SSRC from an address at max-ssrcs-per-host */
  guint64 rtcp_unproven_full;     /* dropped: a new unproven SSRC at max-unproven-members */
} GstAmCcCounters;

/* ---- RTCP helpers (exposed for tests) ---- */
/* Appends an APP packet (payload len a multiple of 4) to a compound RTCP buffer if the buffer's
 * first packet is an SR or RR, it holds no BYE (which must stay last) and the APP fits in the
 * buffer's allocated size (the RTCP MTU). */
gboolean gst_am_rtcp_append_app (GstBuffer * buf, guint8 subtype, guint32 ssrc,
    const gchar name[4], const guint8 * data, gsize len);
/* Bytes of APP payload that still fit after the packets already in buf (0 if none or if the
 * buffer does not start with SR/RR). */
gsize gst_am_rtcp_app_room (GstBuffer * buf);

/* ---- the RTCP interval lib/cc is told (ASMP's eq. 20 compares it with T_suspend) ---- */
/* RFC 3550 6.3.1's deterministic report interval Td (ns) as rtpsession computes it for a
 * member that sends (we_send) or only receives, from the session's load and the mean compound
 * RTCP packet (bytes, UDP and IP headers included): AVP's minimum is rtcp-min-interval, and
 * AVPF's regular interval is held to T_rr_interval, the same value. 0 when the session sends no
 * RTCP (no RTCP bandwidth). */
gint64 gst_am_rtcp_interval (const GstAmSessionLoad * l, gboolean we_send,
    gdouble avg_rtcp_bytes);
/* The mean compound RTCP packet as rtpsession keeps it (RFC 3550 6.3.3: 1/16 of each new
 * packet, UDP and IP headers included; 100 bytes to start). */
#define GST_AM_RTCP_AVG_INIT 100.0
#define GST_AM_UDP_IP_OVERHEAD 28
gdouble gst_am_rtcp_avg_update (gdouble avg, gsize rtcp_bytes);

/* ---- sender ---- */
typedef struct _GstAmCcSender GstAmCcSender;
GstAmCcSender *gst_am_cc_sender_new (const GstAmCcConfig * cfg, gint64 now);
void gst_am_cc_sender_free (GstAmCcSender * s);
void gst_am_cc_sender_on_rtp_sent (GstAmCcSender * s, gint64 now, gsize bytes);
/* A compound RTCP packet arrived from the group. FALSE: it failed the source-address check
 * (gstamguard.h) and was counted; drop it so that rtpbin does not see it either. */
gboolean gst_am_cc_sender_on_rtcp (GstAmCcSender * s, gint64 now, GstBuffer * buf,
    guint32 own_ssrc);
/* rtpsession is about to send buf: append the sender APP. TRUE if one was appended. */
gboolean gst_am_cc_sender_on_sending_rtcp (GstAmCcSender * s, gint64 now,
    GstBuffer * buf, guint32 own_ssrc);
/* The protocol's sending rate, bit/s, clamped to [min, max]. */
guint gst_am_cc_sender_rate (GstAmCcSender * s, gint64 now);
/* When the sender wants its next extra (early) RTCP packet (gst_am_now ns), 0 = regular RTCP only. */
gint64 gst_am_cc_sender_early_due (GstAmCcSender * s, gint64 now);
void gst_am_cc_sender_set_limits (GstAmCcSender * s, guint min_bps, guint max_bps);
/* Fields: see docs/elements.md "asmpsink-stats". Also writes the rate.csv numbers. When lib/cc
 * names an outlier that was not named at the previous call, *outlier (if not NULL) gets an
 * "asmpsink-outlier" structure to post, else NULL. */
GstStructure *gst_am_cc_sender_stats (GstAmCcSender * s, gint64 now, guint target_bps,
    GstStructure ** outlier);
/* The application excludes (or readmits) a receiver: its feedback no longer counts. */
gboolean gst_am_cc_sender_exclude (GstAmCcSender * s, gint64 now, guint32 ssrc, gboolean exclude);
const GstAmCcCounters *gst_am_cc_sender_counters (GstAmCcSender * s);
/* The highest loss rate among receivers whose last report is younger than the receiver
 * timeout (0 when none reports loss): what FEC must repair. */
gdouble gst_am_cc_sender_worst_loss (GstAmCcSender * s, gint64 now);
/* lib/cc's controller (a simulcast bin ties its streams' controllers together). */
amcc_sender *gst_am_cc_sender_controller (GstAmCcSender * s);
/* The session's load changed (call at each regular RTCP packet): lib/cc gets the receivers'
 * report interval (Td as a receiver computes it, amcc_sender_set_rtcp_interval), which sets
 * its receiver timeout; stats: rtcp-interval-s, receiver-timeout-s. */
void gst_am_cc_sender_set_session (GstAmCcSender * s, gint64 now, const GstAmSessionLoad * l);

/* ---- receiver ---- */
typedef struct _GstAmCcReceiver GstAmCcReceiver;
GstAmCcReceiver *gst_am_cc_receiver_new (const GstAmCcConfig * cfg, gint64 now,
    guint32 own_ssrc);
void gst_am_cc_receiver_free (GstAmCcReceiver * r);
/* One RTP packet arrived (info from gst_am_rtp_read). */
void gst_am_cc_receiver_on_rtp (GstAmCcReceiver * r, gint64 now, const GstAmRtpInfo * info);
/* Bytes of the session on our link outside the media packets (FEC parity). */
void gst_am_cc_receiver_on_extra_bytes (GstAmCcReceiver * r, gint64 now, gsize bytes);
/* A compound RTCP packet arrived (sender SR + APP, or a peer's RR + APP). FALSE as for the
 * sender: drop it. */
gboolean gst_am_cc_receiver_on_rtcp (GstAmCcReceiver * r, gint64 now, GstBuffer * buf,
    guint32 own_ssrc, guint group_size);
/* rtpsession is about to send buf: make the report and append the APP unless suppressed. */
gboolean gst_am_cc_receiver_on_sending_rtcp (GstAmCcReceiver * r, gint64 now,
    GstBuffer * buf, guint32 own_ssrc);
/* When the receiver wants its next report sent early (gst_am_now ns), or 0 for the regular RTCP. */
gint64 gst_am_cc_receiver_report_due (GstAmCcReceiver * r, gint64 now);
GstStructure *gst_am_cc_receiver_stats (GstAmCcReceiver * r, gint64 now);
const GstAmCcCounters *gst_am_cc_receiver_counters (GstAmCcReceiver * r);
/* lib/cc's controller (a simulcast receiver asks it which stream it wants). */
amcc_receiver *gst_am_cc_receiver_controller (GstAmCcReceiver * r);
/* As for the sender: lib/cc gets our own report interval (amcc_receiver_set_rtcp_interval:
 * ASMP's eq. 20 starts above T_suspend); stats: rtcp-interval-s, the interval lib/cc uses. */
void gst_am_cc_receiver_set_session (GstAmCcReceiver * r, gint64 now,
    const GstAmSessionLoad * l);


/* ---- internal: a bounds-checked walk over a compound RTCP buffer (shared by both sides) ---- */
typedef struct {
  void (*sender_report) (gpointer u, guint32 ssrc);
  void (*report_block) (gpointer u, guint32 reporter, guint32 about, guint32 lsr,
      guint32 dlsr);
  void (*app) (gpointer u, guint32 ssrc, const gchar * name, guint8 subtype,
      const guint8 * data, gsize len);
  void (*bye) (gpointer u, guint32 ssrc);
} GstAmRtcpVisitor;
/* FALSE (and no callbacks) when the buffer is not valid RTCP. */
gboolean gst_am_rtcp_walk (GstBuffer * buf, const GstAmRtcpVisitor * v, gpointer u);
/* NTP middle 32 bits of a gst_am_now() time on the wall clock (A in A - LSR - DLSR: rtpsession
 * stamps its SRs with the wall clock). */
guint32 gst_am_ntp_mid32 (gint64 now);
/* The source-address guard of a role: bindings outlive 10 RTCP intervals of silence, 30 s at
 * least; proof_slack as gst_am_source_guard_new's. */
GstAmSourceGuard *gst_am_cc_guard_new (const GstAmCcConfig * cfg, gint64 proof_slack);
/* The elements' max-unproven-members property (GstAmCcConfig.max_unproven_members). */
GParamSpec *gst_am_cc_unproven_param (GParamFlags flags);
/* Runs the guard on an incoming compound RTCP packet and counts a drop; TRUE: use it. */
gboolean gst_am_cc_guard_pass (GstAmCcCounters * c, GstAmSourceGuard * g, GstBuffer * buf,
    gint64 now);
/* Counts what the controller made of an incoming APP. */
void gst_am_cc_count_app (GstAmCcCounters * c, amcc_app_result res);
/* Appends the APP that *_next_app returned (ret, app, payload) to buf and counts the outcome;
 * TRUE if appended. */
gboolean gst_am_cc_append_app (GstAmCcCounters * c, GstBuffer * buf, guint32 own_ssrc,
    gint ret, const amcc_app * app, const guint8 * payload);
/* APP payload buffer the glue hands to *_next_app (the RTCP MTU binds first). */
#define GST_AM_APP_MAX 1500

G_END_DECLS
#endif
