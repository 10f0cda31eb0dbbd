/* gstasmpsink-props.c - asmpsink's GObject properties: their specs, set and get (the FEC ones
 * in gstasmpsink-fec.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstasmpsink-priv.h"

#include "../common/gstampacer.h"

static GParamSpec *props[N_PROPS];

void
gst_asmp_sink_notify_target (GstAsmpSink * self)
{
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_TARGET_BITRATE]);
}

void
configure_pacer_locked (GstAsmpSink * self)
{
  if (self->pacer)
    gst_am_pacer_configure (GST_AM_PACER (self->pacer), self->pacing, self->pacing_factor,
        self->max_pacing_delay_ms, self->pacing_burst_ms);
}

void
gst_asmp_sink_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstAsmpSink *self = GST_ASMP_SINK (object);

  g_mutex_lock (self->lockp);
  switch (prop_id) {
    case PROP_PROTOCOL:
      self->protocol = g_value_get_enum (value);
      break;
    case PROP_INITIAL_BITRATE:
      self->initial_bps = g_value_get_uint (value);
      break;
    case PROP_MIN_BITRATE:
      self->min_bps = g_value_get_uint (value);
      if (self->cc)
        gst_am_cc_sender_set_limits (self->cc, self->min_bps, self->max_bps);
      break;
    case PROP_MAX_BITRATE:
      self->max_bps = g_value_get_uint (value);
      /* takes effect while playing: the target is re-clamped at once */
      if (self->cc)
        gst_am_cc_sender_set_limits (self->cc, self->min_bps, self->max_bps);
      break;
    case PROP_ENCODER:
      gst_object_replace ((GstObject **) & self->encoder_prop, g_value_get_object (value));
      break;
    case PROP_RTCP_INTERVAL:
      self->rtcp_interval_ms = g_value_get_uint (value);
      break;
    case PROP_MAX_SSRCS_PER_HOST:
      self->max_ssrcs_per_host = g_value_get_uint (value);
      break;
    case PROP_MAX_UNPROVEN_MEMBERS:
      self->max_unproven_members = g_value_get_uint (value);
      break;
    case PROP_RECEIVER_TIMEOUT:
      self->receiver_timeout_ms = g_value_get_uint (value);
      break;
    case PROP_TRACE_DIR:
      g_free (self->trace_dir);
      self->trace_dir = g_value_dup_string (value);
      break;
    case PROP_SDP_FILE:
      g_free (self->sdp_file);
      self->sdp_file = g_value_dup_string (value);
      break;
    case PROP_PACING:
      self->pacing = g_value_get_boolean (value);
      break;
    case PROP_PACING_FACTOR:
      self->pacing_factor = g_value_get_double (value);
      break;
    case PROP_MAX_PACING_DELAY:
      self->max_pacing_delay_ms = g_value_get_uint (value);
      break;
    case PROP_PACING_BURST:
      self->pacing_burst_ms = g_value_get_uint (value);
      break;
    case PROP_RATE_MATCH:
      gst_am_encoder_set_match (&self->enc, g_value_get_boolean (value));
      break;
    case PROP_INTRA_REFRESH:
      gst_am_encoder_set_intra_refresh (&self->enc, g_value_get_boolean (value));
      break;
    default:
      if (!gst_am_net_config_set_property (self->net, pspec, value)
          && !gst_asmp_sink_fec_set_property (&self->fec, pspec, value)
          && !gst_am_srtp_set_property (self->srtp, pspec, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (prop_id == PROP_PACING || prop_id == PROP_PACING_FACTOR
      || prop_id == PROP_MAX_PACING_DELAY || prop_id == PROP_PACING_BURST)
    configure_pacer_locked (self);
  if (prop_id == PROP_MIN_BITRATE || prop_id == PROP_MAX_BITRATE) {
    gboolean changed = update_target_locked (self, gst_am_now ());
    guint bps = self->media_bps;
    GstAmEncKind kind = self->enc.kind;
    g_mutex_unlock (self->lockp);
    if (changed)
      target_changed (self, bps, kind);
    return;
  }
  g_mutex_unlock (self->lockp);
  /* outside our lock: rtpsession takes its own (lock order: session, then ours) */
  if (prop_id == PROP_RTCP_INTERVAL)
    gst_am_set_rtcp_interval (self->rtpbin, g_value_get_uint (value));
}

void
gst_asmp_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAsmpSink *self = GST_ASMP_SINK (object);

  g_mutex_lock (self->lockp);
  switch (prop_id) {
    case PROP_PROTOCOL: g_value_set_enum (value, self->protocol); break;
    case PROP_INITIAL_BITRATE: g_value_set_uint (value, self->initial_bps); break;
    case PROP_MIN_BITRATE: g_value_set_uint (value, self->min_bps); break;
    case PROP_MAX_BITRATE: g_value_set_uint (value, self->max_bps); break;
    case PROP_TARGET_BITRATE: g_value_set_uint (value, self->target_bps); break;
    case PROP_ENCODER:
      g_value_set_object (value, self->encoder_prop ? self->encoder_prop : self->enc.encoder);
      break;
    case PROP_RTCP_INTERVAL: g_value_set_uint (value, self->rtcp_interval_ms); break;
    case PROP_MAX_SSRCS_PER_HOST: g_value_set_uint (value, self->max_ssrcs_per_host); break;
    case PROP_MAX_UNPROVEN_MEMBERS: g_value_set_uint (value, self->max_unproven_members); break;
    case PROP_RECEIVER_TIMEOUT: g_value_set_uint (value, self->receiver_timeout_ms); break;
    case PROP_TRACE_DIR: g_value_set_string (value, self->trace_dir); break;
    case PROP_SDP_FILE: g_value_set_string (value, self->sdp_file); break;
    case PROP_PACING: g_value_set_boolean (value, self->pacing); break;
    case PROP_PACING_FACTOR: g_value_set_double (value, self->pacing_factor); break;
    case PROP_MAX_PACING_DELAY: g_value_set_uint (value, self->max_pacing_delay_ms); break;
    case PROP_PACING_BURST: g_value_set_uint (value, self->pacing_burst_ms); break;
    case PROP_RATE_MATCH: g_value_set_boolean (value, self->enc.match); break;
    case PROP_INTRA_REFRESH: g_value_set_boolean (value, self->enc.intra_refresh); break;
    case PROP_STATS:{
      GstStructure *st = self->stats ? gst_structure_copy (self->stats)
          : gst_structure_new_empty ("asmpsink-stats");
      gst_am_srtp_add_stats (self->srtp, st);   /* the SRTP counters as they are now */
      g_value_take_boxed (value, st);
      break;
    }
    default:
      if (!gst_am_net_config_get_property (self->net, pspec, value)
          && !gst_asmp_sink_fec_get_property (&self->fec, pspec, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (self->lockp);
}

void
gst_asmp_sink_install_properties (GObjectClass * gobject_class)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  const GParamFlags rw_ready = rw | GST_PARAM_MUTABLE_READY;

  props[PROP_ADDRESS] = g_param_spec_string ("address", "Address",
      "Multicast group (or unicast address) to send RTP to; RTCP goes to the same address "
      "on port + 1", GST_AM_DEFAULT_ADDRESS, rw_ready);
  props[PROP_PORT] = g_param_spec_int ("port", "Port",
      "RTP port (RTCP uses port + 1)", 1, 65534, GST_AM_DEFAULT_PORT, rw_ready);
  props[PROP_MULTICAST_IFACE] = g_param_spec_string ("multicast-iface", "Multicast interface",
      "Network interface to join the group on (NULL: the kernel's choice)", NULL, rw_ready);
  props[PROP_TTL_MC] = g_param_spec_int ("ttl-mc", "Multicast TTL",
      "TTL of multicast RTP and RTCP packets (hops)", 0, 255, 1, rw_ready);
  props[PROP_LOOP] = g_param_spec_boolean ("loop", "Multicast loop",
      "Loop multicast back to this host (needed when receivers run in the same network "
      "namespace; our own looped RTCP is dropped)", FALSE, rw_ready);
  props[PROP_PROTOCOL] = g_param_spec_enum ("protocol", "Protocol",
      gst_am_enum_blurb (GST_TYPE_AM_PROTOCOL, "Congestion control (lib/cc's registry): ", "; the receivers must run the same"),
      GST_TYPE_AM_PROTOCOL,
      GST_AM_PROTOCOL_DEFAULT, rw_ready);
  props[PROP_INITIAL_BITRATE] = g_param_spec_uint ("initial-bitrate", "Initial bitrate",
      "Target before any receiver report (bit/s); applied to the encoder at start",
      1, G_MAXUINT, DEFAULT_INITIAL_BPS, rw_ready);
  props[PROP_MIN_BITRATE] = g_param_spec_uint ("min-bitrate", "Minimum bitrate",
      "Lower clamp of the target (bit/s)", 1, G_MAXUINT, DEFAULT_MIN_BPS,
      rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_MAX_BITRATE] = g_param_spec_uint ("max-bitrate", "Maximum bitrate",
      "Upper clamp of the target (bit/s); may change while playing", 1, G_MAXUINT,
      DEFAULT_MAX_BPS, rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_TARGET_BITRATE] = g_param_spec_uint ("target-bitrate", "Target bitrate",
      "Current target from the congestion controller (bit/s, read-only, notifies); the "
      "encoder gets it at its next key frame", 0, G_MAXUINT, DEFAULT_INITIAL_BPS,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_ENCODER] = g_param_spec_object ("encoder", "Encoder",
      "Encoder to drive (x264enc: bitrate kbit/s; vp8enc: target-bitrate bit/s; openh264enc: "
      "bitrate bit/s; others: 'asmpsink-bitrate' bus message). NULL: search upstream",
      GST_TYPE_ELEMENT, rw_ready);
  props[PROP_RTCP_INTERVAL] = g_param_spec_uint ("rtcp-interval", "RTCP interval",
      "Minimum RTCP interval (ms), given to rtpsession's rtcp-min-interval; stats are "
      "posted once per RTCP packet", 1, 600000, GST_AM_DEFAULT_RTCP_INTERVAL_MS, rw_ready);
  props[PROP_MAX_SSRCS_PER_HOST] = g_param_spec_uint ("max-ssrcs-per-host", "Max SSRCs per host",
      "RTCP SSRCs one source address may speak for at a time; RTCP that would bind more is "
      "dropped (rtcp-host-full), so one host cannot grow the member count and the RTCP interval "
      "(docs/security.md). 0 = no limit (e.g. many test receivers on one host)", 0, G_MAXUINT,
      GST_AM_GUARD_MAX_PER_HOST, rw_ready);
  props[PROP_MAX_UNPROVEN_MEMBERS] = gst_am_cc_unproven_param (rw_ready);
  props[PROP_RECEIVER_TIMEOUT] = g_param_spec_uint ("receiver-timeout", "Receiver timeout",
      "ASMP: a receiver silent this long (ms; no RR, no report) no longer holds the rate down; "
      "0 = 3 x the receivers' RTCP interval as rtpsession computes it for the group (at least "
      "rtcp-interval); set it when receivers use other RTCP settings", 0, G_MAXUINT, 0,
      rw_ready);
  props[PROP_TRACE_DIR] = g_param_spec_string ("trace-dir", "Trace directory",
      "Directory for sd.txt and rate.csv (docs/run-directory.md); NULL: no traces", NULL,
      rw_ready);
  props[PROP_SDP_FILE] = g_param_spec_string ("sdp-file", "SDP file",
      "Write an SDP describing the stream here when caps are known (NULL: none)", NULL,
      rw_ready);
  props[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Last 'asmpsink-stats' structure (see docs/elements.md), its srtp-* counters as they "
      "are now", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_PACING] = g_param_spec_boolean ("pacing", "Pacing",
      "Space RTP packets so the instantaneous rate is at most pacing-factor x target-bitrate "
      "(TFMCC: RFC 4654 3.7's 8 s / X); false: packets leave as they arrive (a key frame in "
      "one burst)", DEFAULT_PACING, rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_PACING_FACTOR] = g_param_spec_double ("pacing-factor", "Pacing factor",
      "Packets leave at up to this multiple of the target (absorbs the encoder's key-frame "
      "overshoot; 1.0 = exactly 8 s / X)", 1.0, 10.0, DEFAULT_PACING_FACTOR,
      rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_MAX_PACING_DELAY] = g_param_spec_uint ("max-pacing-delay", "Maximum pacing delay",
      "A packet waits at most this long (ms) in the pacer, then leaves at once, so pacing "
      "never adds more latency", 0, 10000, DEFAULT_MAX_PACING_DELAY_MS,
      rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_PACING_BURST] = g_param_spec_uint ("pacing-burst", "Pacing burst",
      "Packets whose paced slot is at most this far ahead (ms) leave together in one wakeup: "
      "a frame no larger than pacing-factor x target x this leaves as one burst, a key frame "
      "is spread; each wakeup costs the sender and the receivers CPU (0 = every packet on its "
      "own slot)", 0, 1000, DEFAULT_PACING_BURST_MS, rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_RATE_MATCH] = g_param_spec_boolean ("rate-match", "Rate matching",
      "Scale the bitrate set on the encoder (within 0.75-1.33 x the target, once per GOP) so "
      "that its measured output matches the target (x264 with a short VBV stays under its "
      "setting; with its default VBV the gain learnt in easy scenes adds to its bursts, so "
      "off by default)", FALSE,
      rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_INTRA_REFRESH] = g_param_spec_boolean ("intra-refresh", "Intra refresh",
      "Set the upstream x264enc to periodic intra refresh (a column of intra blocks sweeps the "
      "picture once per key-int-max frames) instead of an IDR frame per key interval: no "
      "key-frame burst for the bottleneck queue to drop; the bitrate changes at each sweep's "
      "start. false leaves the encoder's own setting", FALSE, rw_ready);
  g_object_class_install_properties (gobject_class, N_PROPS, props);
  gst_asmp_sink_fec_install_properties (gobject_class, N_PROPS);
  gst_am_srtp_install_property (gobject_class, PROP_SRTP_KEY);
}
