/* gstasmpsrc.c - asmpsrc: joins a multicast group, receives RTP and RTCP through rtpbin, runs
 * the ASMP (or TFMCC) receiver of lib/cc on every RTP packet and appends its APP report to
 * the RRs it sends to the group.
 *
 *   asmpsrc address=239.1.2.3 port=5004 ! rtph264depay ! avdec_h264 ! ...
 *
 * Inside (the base bin, gst/common/gstamsessionbin.h, makes session 0 and opens its sockets):
 *         udpsrc (RTP) -> rtpbin recv_rtp_sink_0 -> recv_rtp_src_0_SSRC_PT -> ghost src
 *         udpsrc (RTCP, port + 1) -> rtpbin recv_rtcp_sink_0
 *         rtpbin send_rtcp_src_0 -> udpsink (RTCP to the group, socket shared with the udpsrc)
 * Leaving (EOS, or PAUSED -> READY) it says BYE for the SSRC of its RRs on that socket
 * (gst_am_rtcp_session_bye, gst_am_rtcp_send_raw): rtpsession says none for a member that only
 * receives.
 * fec=true: udpsrc (RTP) -> rtpst2022-1-fecdec -> rtpbin, fed by two udpsrcs on fec-address
 *         port + 2 (column FEC) and + 4 (row FEC): packets are rebuilt before the jitter
 *         buffer; lib/cc still measures what arrived (the loss before recovery, which FEC is
 *         sized for): the packets FEC did not rebuild (gst_am_fec_recv_take_rebuilt)
 * srtp-key: rtpbin's decoder (srtpdec) and RTCP encoder (srtpenc) are slots of
 *         gst/common/gstamsrtp.c; lib/cc and rd.txt see RTP after authentication (rebuilt
 *         packets too: they are the originals byte for byte; the parity itself is checked
 *         against srtp-key's tag before the decoder, gstamfec.h), RTCP after authentication;
 *         our BYE is protected as our RRs */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstasmpsrc-priv.h"

GST_DEBUG_CATEGORY_STATIC (asmpsrc_debug);
#define GST_CAT_DEFAULT asmpsrc_debug

G_DEFINE_TYPE (GstAsmpSrc, gst_asmp_src, GST_TYPE_AM_SESSION_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (asmpsrc, "asmpsrc", GST_RANK_NONE,
    GST_TYPE_ASMP_SRC, GST_DEBUG_CATEGORY_INIT (asmpsrc_debug, "asmpsrc", 0,
        "adaptive multicast RTP receiver"));

#define MAX_STREAMS 8           /* rtpbin streams and extended-seq states per receiver */

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

/* ---- early reports (TFMCC feedback timer, ASMP eq. 20 above T_suspend) ---- */
static gboolean
early_cb (GstClock * clock, GstClockTime t, GstClockID id, gpointer data)
{
  GstAsmpSrc *self = data;
  gboolean mine;

  g_mutex_lock (self->lockp);
  mine = self->early_id == id;
  if (mine) {
    gst_am_timer_stop (&self->early_id);
    self->last_early = gst_am_now ();
  }
  g_mutex_unlock (self->lockp);
  if (mine)
    gst_am_request_early_rtcp (self->session, GST_OBJECT (self), "our report");
  return TRUE;
}

static void
arm_early_locked (GstAsmpSrc * self, gint64 now)
{
  gint64 due = self->cc ? gst_am_cc_receiver_report_due (self->cc, now) : 0;

  if (due <= 0 || self->early_id || GST_STATE (self) != GST_STATE_PLAYING)
    return;
  self->early_id = gst_am_timer_start (MAX (due - now,
          self->last_early + MIN_EARLY_GAP_NS - now), early_cb, GST_OBJECT (self));
}

/* ---- RTP arriving (udpsrc thread) ---- */
/* cc: lib/cc measures it unless FEC rebuilt it (what arrived); trace: rd.txt gets it (what
 * reaches the jitter buffer: with FEC, after recovery) */
static void
process_rtp (GstAsmpSrc * self, GstBuffer * buf, gint64 now, gboolean cc, gboolean trace)
{
  GstAmRtpInfo info;
  guint32 extseq;

  if (!gst_am_rtp_read (buf, &info))
    return;                     /* not RTP: rtpbin drops it */
  if (self->fec && gst_am_fec_recv_take_rebuilt (&self->fecrx, info.seq))
    cc = FALSE;
  g_mutex_lock (self->lockp);
  if (info.has_extseq) {
    extseq = info.extseq;
  } else {
    amcc_seq_ext *se = g_hash_table_lookup (self->seqext, GUINT_TO_POINTER (info.ssrc));
    if (!se && g_hash_table_size (self->seqext) >= MAX_STREAMS)
      g_hash_table_remove_all (self->seqext);   /* a flood of SSRCs: start over, bounded */
    if (!se) {
      se = g_new0 (amcc_seq_ext, 1);
      g_hash_table_insert (self->seqext, GUINT_TO_POINTER (info.ssrc), se);
    }
    extseq = amcc_seq_ext_update (se, info.seq);
  }
  if (trace)
    gst_am_trace_rd (self->rd, now, gst_am_wide_id (info.ssrc, extseq), info.size);
  if (self->cc && cc) {
    guint64 parity = gst_am_fec_recv_take_bytes (&self->fecrx);
    gst_am_cc_receiver_on_rtp (self->cc, now, &info);
    if (parity)
      gst_am_cc_receiver_on_extra_bytes (self->cc, now, parity);
    arm_early_locked (self, now);
  }
  g_mutex_unlock (self->lockp);
}

static GstPadProbeReturn
rtp_probe (GstAsmpSrc * self, GstPadProbeInfo * info, gboolean cc, gboolean trace)
{
  gint64 now = gst_am_now ();

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    process_rtp (self, GST_PAD_PROBE_INFO_BUFFER (info), now, cc, trace);
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = GST_PAD_PROBE_INFO_BUFFER_LIST (info);
    guint i;
    for (i = 0; i < gst_buffer_list_length (l); i++)
      process_rtp (self, gst_buffer_list_get (l, i), now, cc, trace);
  }
  return GST_PAD_PROBE_OK;
}

/* fec=true: a packet that arrived after FEC had rebuilt it, identical to the rebuilt copy
 * that passed authentication: lib/cc counts its arrival */
static void
on_late (gpointer user, GstBuffer * original, gint64 now)
{
  process_rtp (user, original, now, TRUE, FALSE);
}

/* RTP that passed authentication (srtp-key; all of it when off), rebuilt packets included:
 * rd.txt, and lib/cc (but for the rebuilt ones) */
static GstPadProbeReturn
rtp_plain_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstAsmpSrc *self = user_data;

  return rtp_probe (self, info, TRUE, TRUE);
}

/* ---- RTCP from the group ---- */
static GstPadProbeReturn
rtcp_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstAsmpSrc *self = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint32 first = gst_am_rtcp_first_ssrc (buf), own;
  guint members = 0;
  gint64 now = gst_am_now ();

  if (self->session)
    g_object_get (self->session, "num-active-sources", &members, NULL);
  own = gst_am_own_ssrc (self->lockp, &self->own_ssrc, self->rtpbin);
  g_mutex_lock (self->lockp);
  /* our own RTCP looped back (shared socket, loop=true): not a collision, drop it */
  if (first && first == own) {
    g_mutex_unlock (self->lockp);
    return GST_PAD_PROBE_DROP;
  }
  if (self->cc) {
    if (!gst_am_cc_receiver_on_rtcp (self->cc, now, buf, self->own_ssrc, members)) {
      g_mutex_unlock (self->lockp);
      return GST_PAD_PROBE_DROP;        /* spoofed: rtpbin must not see its BYE or SR either */
    }
    arm_early_locked (self, now);
  }
  g_mutex_unlock (self->lockp);
  return GST_PAD_PROBE_OK;
}

/* ---- RTCP about to leave (rtpsession's RTCP thread) ---- */
static gboolean
on_sending_rtcp (GObject * session, GstBuffer * buf, gboolean early, gpointer user_data)
{
  GstAsmpSrc *self = user_data;
  gint64 now = gst_am_now ();
  gboolean appended = FALSE;
  GstStructure *stats = NULL;
  GstAmSessionLoad load;

  /* the session's lock, not ours: read it first (lock order: session, then ours) */
  if (!early)
    gst_am_session_load (session, &load);
  g_mutex_lock (self->lockp);
  self->own_ssrc = gst_am_rtcp_first_ssrc (buf);
  if (!self->left)
    self->said_ssrc = self->own_ssrc;
  if (self->pli_ssrc && gst_am_rtcp_add_pli (buf, self->own_ssrc, self->pli_ssrc)) {
    GST_DEBUG_OBJECT (self, "PLI to %08x", self->pli_ssrc);
    self->pli_ssrc = 0;
    appended = TRUE;
  }
  if (self->cc) {
    if (!early) {     /* the interval this packet's successor is timed by (eq. 20, T_suspend) */
      gst_am_cc_receiver_set_session (self->cc, now, &load);
      GST_LOG_OBJECT (self, "%u members, %u senders, %.0f bit/s: RTCP interval %.3f s",
          load.members, load.senders, load.rtp_bps,
          amcc_receiver_rtcp_interval (gst_am_cc_receiver_controller (self->cc)) / 1e9);
    }
    appended |= gst_am_cc_receiver_on_sending_rtcp (self->cc, now, buf, self->own_ssrc);
    if (!early) {
      stats = gst_am_cc_receiver_stats (self->cc, now);
      gst_am_fec_recv_add_stats (&self->fecrx, stats);
      gst_am_srtp_add_stats (self->srtp, stats);
      gst_am_trace_stats_row (self->stats_csv, stats);
      if (self->stats)
        gst_structure_free (self->stats);
      self->stats = gst_structure_copy (stats);
    }
  }
  g_mutex_unlock (self->lockp);
  if (stats)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), stats));
  /* TRUE keeps an early packet that carries our report from being suppressed (AVPF) */
  return appended;
}

void
gst_asmp_src_request_key_frame (GstAsmpSrc * self, guint32 sender_ssrc)
{
  g_mutex_lock (self->lockp);
  self->pli_ssrc = sender_ssrc;
  g_mutex_unlock (self->lockp);
  gst_am_request_early_rtcp (self->session, GST_OBJECT (self), "a key-frame request");
}

static void
on_pad_added (GstElement * rtpbin, GstPad * pad, gpointer user_data)
{
  GstAsmpSrc *self = user_data;

  if (GST_PAD_DIRECTION (pad) != GST_PAD_SRC
      || !g_str_has_prefix (GST_PAD_NAME (pad), "recv_rtp_src_"))
    return;
  /* the newest sender wins (a restarted sender has a new SSRC) */
  GST_INFO_OBJECT (self, "stream pad %s", GST_PAD_NAME (pad));
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), pad);
}

/* ---- properties ---- */
/* ---- one stream of a group (asspsrc) ---- */
void
gst_asmp_src_join_group (GstAsmpSrc * self, GMutex * lock, const amcc_protocol * proto)
{
  self->lockp = lock;
  self->group_protocol = proto;
}

void
gst_asmp_src_lend_controller (GstAsmpSrc * self, GstAmCcReceiver * cc)
{
  self->cc = cc;
  if (!cc)
    gst_am_timer_stop (&self->early_id);
}

guint32
gst_asmp_src_own_ssrc (GstAsmpSrc * self)
{
  return self->own_ssrc;
}

/* ---- leaving: the BYE rtpsession does not send for a receiver ---- */
/* The BYE we owe (NULL: none, we never reported), made while the RTCP encoder still runs: with
 * srtp-key it is protected as our next RR would be (the sender drops anything else) */
static GstBuffer *
take_bye (GstAsmpSrc * self, guint32 * ssrc)
{
  GstBuffer *plain, *bye = NULL;

  g_mutex_lock (self->lockp);
  *ssrc = self->said_ssrc;
  self->said_ssrc = 0;
  self->left = TRUE;
  g_mutex_unlock (self->lockp);
  if (!*ssrc)
    return NULL;                /* never reported: nobody counts us */
  plain = gst_am_rtcp_session_bye (self->session, *ssrc);
  if (plain)
    bye = gst_am_srtp_protect_rtcp (self->srtp, plain);
  gst_clear_buffer (&plain);
  return bye;
}

static void
send_bye (GstAsmpSrc * self, GstBuffer * bye, guint32 ssrc, const gchar * why)
{
  if (!ssrc)
    return;
  if (bye && gst_am_rtcp_send_raw (self->rtcp_src, self->rtcp_sink, bye))
    GST_INFO_OBJECT (self, "BYE for %08x (%s)", ssrc, why);
  else
    GST_WARNING_OBJECT (self, "could not send the BYE for %08x (%s)", ssrc, why);
  gst_clear_buffer (&bye);
}

/* rtpsession ends its RTCP with EOS once EOS has come on the RTP path: after its last RR. Seen
 * before the RTCP encoder has it (it can still protect the BYE) */
static GstPadProbeReturn
rtcp_eos_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstAsmpSrc *self = user_data;
  GstBuffer *bye;
  guint32 ssrc;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    bye = take_bye (self, &ssrc);
    send_bye (self, bye, ssrc, "EOS");
  }
  return GST_PAD_PROBE_OK;
}

/* ---- state ---- */
/* NULL -> READY, called by the base bin (lock held) before it opens the RTCP socket */
static gboolean
start_locked (GstAmSessionBin * bin)
{
  GstAsmpSrc *self = GST_ASMP_SRC (bin);
  GstAmCcConfig cfg = { 0 };
  GError *err = NULL;
  gint clock_rate = 90000;

  if (gst_caps_get_size (self->caps) > 0)
    gst_structure_get_int (gst_caps_get_structure (self->caps, 0), "clock-rate", &clock_rate);
  gst_am_session_bin_set_address (GST_AM_SESSION_BIN (self),
      gst_am_session_bin_session (GST_AM_SESSION_BIN (self), 0), self->net->address,
      self->net->port, self->rtcp_address);
  g_object_set (self->rtp_src, "caps", self->caps, NULL);
  if (self->fec) {
    GstPad *up = gst_element_get_static_pad (self->rtp_src, "src");
    GBytes *key = gst_am_srtp_get_key (self->srtp);
    gboolean ok = self->fec_address && gst_am_fec_recv_setup (&self->fecrx, GST_BIN (self), up,
        self->net, self->fec_address, self->net->port, key);
    gst_object_unref (up);
    if (key)
      g_bytes_unref (key);
    if (!ok) {
      if (!self->fec_address)
        GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL), ("fec=true needs fec-address"));
      return FALSE;
    }
  }
  cfg.protocol = self->group_protocol ? self->group_protocol
      : gst_am_protocol_get (self->protocol);
  g_object_set (self->rtpbin, "latency", self->latency_ms, "rtp-profile",
      gst_am_protocol_rtp_profile (cfg.protocol), NULL);
  gst_am_set_rtcp_interval (self->rtpbin, self->rtcp_interval_ms);

  cfg.rtcp_interval_ms = self->rtcp_interval_ms;
  cfg.max_ssrcs_per_host = self->max_ssrcs_per_host;
  cfg.max_unproven_members = self->max_unproven_members;
  cfg.clock_rate = clock_rate > 0 ? clock_rate : 90000;
  if (!self->group_protocol)    /* in a group the group lends its receiver to one stream */
    self->cc = gst_am_cc_receiver_new (&cfg, gst_am_now (), gst_am_internal_ssrc (self->rtpbin));
  if (!self->cc && !self->group_protocol) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL), ("lib/cc rejected the parameters"));
    return FALSE;
  }
  self->last_early = 0;
  self->said_ssrc = 0;
  self->left = FALSE;
  /* in a group (asspsrc) a stream is joined and left again and again: its traces accumulate */
  if (self->trace_dir && !gst_am_trace_open_pair_full (self->trace_dir, "rd.txt", &self->rd,
          "stats.csv", "time_s,rate_bps,recv_bps,loss,rtt_s,jitter_s,congested,mode,queue_s",
          &self->stats_csv, self->group_protocol && self->traced, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, (NULL), ("%s", err->message));
    g_clear_error (&err);
    return FALSE;
  }
  self->traced = self->trace_dir != NULL;
  return TRUE;
}

static void
stop_locked (GstAmSessionBin * bin)
{
  GstAsmpSrc *self = GST_ASMP_SRC (bin);
  gst_am_timer_stop (&self->early_id);
  if (self->group_protocol)
    self->cc = NULL;            /* the group's */
  else
    g_clear_pointer (&self->cc, gst_am_cc_receiver_free);
  g_clear_pointer (&self->rd, gst_am_trace_close);
  g_clear_pointer (&self->stats_csv, gst_am_trace_close);
  g_hash_table_remove_all (self->seqext);
  self->own_ssrc = 0;
}

static GstStateChangeReturn
gst_asmp_src_change_state (GstElement * element, GstStateChange transition)
{
  GstAsmpSrc *self = GST_ASMP_SRC (element);
  GstStateChangeReturn ret;
  GstBuffer *bye = NULL;
  guint32 bye_ssrc = 0;

  switch (transition) {
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      g_mutex_lock (self->lockp);
      gst_am_timer_stop (&self->early_id);
      gst_am_trace_flush (self->rd);
      gst_am_trace_flush (self->stats_csv);
      g_mutex_unlock (self->lockp);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      bye = take_bye (self, &bye_ssrc);       /* the RTCP encoder still runs (srtp-key) */
      break;
    default:
      break;
  }
  ret = GST_ELEMENT_CLASS (gst_asmp_src_parent_class)->change_state (element, transition);
  /* rtpsession's RTCP thread has stopped (no RR after it); the udpsrc keeps its socket in READY.
   * An RR made since the BYE was protected carries a later SRTCP index: the replay window takes
   * the BYE after it all the same */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    send_bye (self, bye, bye_ssrc, "stopping");
  else if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_mutex_lock (self->lockp);
    self->left = FALSE;   /* a restart without NULL: it may owe a BYE again */
    g_mutex_unlock (self->lockp);
  }
  return ret;
}


static void
gst_asmp_src_init (GstAsmpSrc * self)
{
  GstAmSessionBin *sb = GST_AM_SESSION_BIN (self);
  GstAmSession *s;

  g_mutex_init (&self->lock);
  self->lockp = &self->lock;
  gst_am_session_bin_set_lock (sb, &self->lockp);
  self->net = gst_am_session_bin_net (sb);
  self->protocol = GST_AM_PROTOCOL_DEFAULT;
  self->caps = gst_caps_from_string (DEFAULT_CAPS);
  self->rtcp_interval_ms = GST_AM_DEFAULT_RTCP_INTERVAL_MS;
  self->max_ssrcs_per_host = GST_AM_GUARD_MAX_PER_HOST;
  self->max_unproven_members = GST_AM_GUARD_MAX_UNPROVEN;
  self->latency_ms = DEFAULT_LATENCY_MS;
  self->seqext = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->fecrx.on_late = on_late;
  self->fecrx.user = self;

  self->rtpbin = gst_am_session_bin_rtpbin (sb);
  self->srtp = gst_am_session_bin_srtp (sb);
  self->srcpad = gst_am_ghost_pad_from_static ("src", &src_template);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
  if (!self->rtpbin)
    return;                     /* error posted; the element fails to start */

  /* forged SRs from new SSRCs made rtpbin create a stream (and threads) each: 9 -> 509 threads
   * after 250 (issue 14); one sender needs one, a restarted sender a second for a while */
  g_object_set (self->rtpbin, "max-streams", MAX_STREAMS, NULL);
  g_signal_connect (self->rtpbin, "pad-added", G_CALLBACK (on_pad_added), self);
  s = gst_am_session_bin_add (sb, GST_AM_SESSION_RECV | GST_AM_SESSION_RTCP_IN, "", NULL);
  if (!s)
    return;
  self->rtp_src = s->rtp_src;
  self->rtcp_src = s->rtcp_src;
  self->rtcp_sink = s->rtcp_sink;

  gst_am_srtp_add_probe (self->srtp, 0, GST_AM_SRTP_RTP_RECV, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, rtp_plain_probe, self);
  gst_am_srtp_add_probe (self->srtp, 0, GST_AM_SRTP_RTCP_RECV, GST_PAD_PROBE_TYPE_BUFFER,
      rtcp_in_probe, self);
  gst_am_srtp_add_probe (self->srtp, 0, GST_AM_SRTP_RTCP_SEND,
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, rtcp_eos_probe, self);

  self->session = gst_am_internal_session (self->rtpbin);
  if (self->session)
    g_signal_connect (self->session, "on-sending-rtcp", G_CALLBACK (on_sending_rtcp), self);
  gst_am_set_rtcp_interval (self->rtpbin, self->rtcp_interval_ms);
}

static void
gst_asmp_src_finalize (GObject * object)
{
  GstAsmpSrc *self = GST_ASMP_SRC (object);

  stop_locked (GST_AM_SESSION_BIN (self));
  if (self->session) {
    g_signal_handlers_disconnect_by_data (self->session, self);
    g_object_unref (self->session);
  }
  g_hash_table_destroy (self->seqext);
  g_free (self->rtcp_address);
  gst_clear_caps (&self->caps);
  g_free (self->trace_dir);
  g_free (self->fec_address);
  gst_am_fec_recv_clear (&self->fecrx);
  if (self->stats)
    gst_structure_free (self->stats);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_asmp_src_parent_class)->finalize (object);
}

static void
gst_asmp_src_class_init (GstAsmpSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_asmp_src_set_property;
  gobject_class->get_property = gst_asmp_src_get_property;
  gobject_class->finalize = gst_asmp_src_finalize;
  element_class->change_state = gst_asmp_src_change_state;
  GST_AM_SESSION_BIN_CLASS (klass)->start = start_locked;
  GST_AM_SESSION_BIN_CLASS (klass)->stop = stop_locked;

  gst_asmp_src_install_properties (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "ASMP multicast RTP source",
      "Source/Network/RTP", "Receives RTP from a multicast group and reports a TCP-friendly "
      "rate to the sender in RTCP APP packets (ASMP, or TFMCC)",
      "gst-amcast <gst-amcast@localhost>");
}
