/* gstasmpsrc-props.c - asmpsrc's GObject properties: their specs (gst-inspect's text) and
 * accessors. Part of the element; the instance is in gstasmpsrc-priv.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstasmpsrc-priv.h"

static GParamSpec *props[N_PROPS];

void
gst_asmp_src_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstAsmpSrc *self = GST_ASMP_SRC (object);

  g_mutex_lock (self->lockp);
  switch (prop_id) {
    case PROP_RTCP_ADDRESS:
      g_free (self->rtcp_address);
      self->rtcp_address = g_value_dup_string (value);
      break;
    case PROP_PROTOCOL:
      self->protocol = g_value_get_enum (value);
      break;
    case PROP_CAPS:
      gst_caps_replace (&self->caps, (GstCaps *) gst_value_get_caps (value));
      if (!self->caps)
        self->caps = gst_caps_from_string (DEFAULT_CAPS);
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
    case PROP_LATENCY:
      self->latency_ms = g_value_get_uint (value);
      break;
    case PROP_FEC:
      self->fec = g_value_get_boolean (value);
      break;
    case PROP_FEC_ADDRESS:
      g_free (self->fec_address);
      self->fec_address = g_value_dup_string (value);
      break;
    case PROP_TRACE_DIR:
      g_free (self->trace_dir);
      self->trace_dir = g_value_dup_string (value);
      self->traced = FALSE;
      break;
    default:
      if (!gst_am_net_config_set_property (self->net, pspec, value)
          && !gst_am_srtp_set_property (self->srtp, pspec, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (self->lockp);
  /* outside our lock: rtpsession takes its own (lock order: session, then ours) */
  if (prop_id == PROP_RTCP_INTERVAL)
    gst_am_set_rtcp_interval (self->rtpbin, g_value_get_uint (value));
  else if (prop_id == PROP_LATENCY)
    g_object_set (self->rtpbin, "latency", g_value_get_uint (value), NULL);
}

void
gst_asmp_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAsmpSrc *self = GST_ASMP_SRC (object);

  g_mutex_lock (self->lockp);
  switch (prop_id) {
    case PROP_RTCP_ADDRESS: g_value_set_string (value, self->rtcp_address); break;
    case PROP_PROTOCOL: g_value_set_enum (value, self->protocol); break;
    case PROP_CAPS: gst_value_set_caps (value, self->caps); break;
    case PROP_RTCP_INTERVAL: g_value_set_uint (value, self->rtcp_interval_ms); break;
    case PROP_MAX_SSRCS_PER_HOST: g_value_set_uint (value, self->max_ssrcs_per_host); break;
    case PROP_MAX_UNPROVEN_MEMBERS: g_value_set_uint (value, self->max_unproven_members); break;
    case PROP_LATENCY: g_value_set_uint (value, self->latency_ms); break;
    case PROP_TRACE_DIR: g_value_set_string (value, self->trace_dir); break;
    case PROP_FEC: g_value_set_boolean (value, self->fec); break;
    case PROP_FEC_ADDRESS: g_value_set_string (value, self->fec_address); break;
    case PROP_STATS:{
      GstStructure *st = self->stats ? gst_structure_copy (self->stats)
          : gst_structure_new_empty ("asmpsrc-stats");
      gst_am_srtp_add_stats (self->srtp, st);   /* the SRTP counters as they are now */
      g_value_take_boxed (value, st);
      break;
    }
    default:
      if (!gst_am_net_config_get_property (self->net, pspec, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (self->lockp);
}

void
gst_asmp_src_install_properties (GObjectClass * gobject_class)
{
  const GParamFlags rw_ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  props[PROP_ADDRESS] = g_param_spec_string ("address", "Address",
      "Multicast group to join (or local unicast address to listen on); RTP on port, RTCP "
      "on port + 1", GST_AM_DEFAULT_ADDRESS, rw_ready);
  props[PROP_PORT] = g_param_spec_int ("port", "Port",
      "RTP port (RTCP uses port + 1)", 1, 65534, GST_AM_DEFAULT_PORT, rw_ready);
  props[PROP_MULTICAST_IFACE] = g_param_spec_string ("multicast-iface", "Multicast interface",
      "Network interface to join the group on (NULL: the kernel's choice)", NULL, rw_ready);
  props[PROP_RTCP_ADDRESS] = g_param_spec_string ("rtcp-address", "RTCP address",
      "Where receiver reports go (port + 1); NULL: the address property (the group). Set it "
      "to the sender's address for unicast", NULL, rw_ready);
  props[PROP_TTL_MC] = g_param_spec_int ("ttl-mc", "Multicast TTL",
      "TTL of the multicast RTCP this receiver sends (hops)", 0, 255, 1, rw_ready);
  props[PROP_LOOP] = g_param_spec_boolean ("loop", "Multicast loop",
      "Loop our multicast RTCP back to this host (needed when other receivers or the sender "
      "share this network namespace; our own looped RTCP is dropped)", FALSE, rw_ready);
  props[PROP_PROTOCOL] = g_param_spec_enum ("protocol", "Protocol",
      gst_am_enum_blurb (GST_TYPE_AM_PROTOCOL, "Congestion control (lib/cc's registry): ",
          "; must match the sender"), GST_TYPE_AM_PROTOCOL, GST_AM_PROTOCOL_DEFAULT, rw_ready);
  props[PROP_CAPS] = g_param_spec_boxed ("caps", "Caps",
      "RTP caps of the stream (default " DEFAULT_CAPS ")", GST_TYPE_CAPS, rw_ready);
  props[PROP_RTCP_INTERVAL] = g_param_spec_uint ("rtcp-interval", "RTCP interval",
      "Minimum RTCP interval (ms), given to rtpsession's rtcp-min-interval; one report and "
      "one stats message per RTCP packet", 1, 600000, GST_AM_DEFAULT_RTCP_INTERVAL_MS,
      rw_ready);
  props[PROP_MAX_SSRCS_PER_HOST] = g_param_spec_uint ("max-ssrcs-per-host", "Max SSRCs per host",
      "RTCP SSRCs one source address may speak for at a time; RTCP that would bind more is "
      "dropped (rtcp-host-full), so one host cannot grow the member count and the RTCP interval "
      "(docs/security.md). 0 = no limit (e.g. many test receivers on one host)", 0, G_MAXUINT,
      GST_AM_GUARD_MAX_PER_HOST, rw_ready);
  props[PROP_MAX_UNPROVEN_MEMBERS] = gst_am_cc_unproven_param (rw_ready);
  props[PROP_LATENCY] = g_param_spec_uint ("latency", "Latency",
      "Jitterbuffer latency (ms)", 0, G_MAXUINT, DEFAULT_LATENCY_MS, rw_ready);
  props[PROP_TRACE_DIR] = g_param_spec_string ("trace-dir", "Trace directory",
      "Directory for rd.txt and stats.csv (docs/run-directory.md); NULL: no traces", NULL,
      rw_ready);
  props[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Last 'asmpsrc-stats' structure (see docs/elements.md), its srtp-* counters as they are "
      "now (a receiver that has authenticated nothing posts none: rtpsession sends no RTCP "
      "before a packet came in)", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_FEC] = g_param_spec_boolean ("fec", "FEC",
      "Join fec-address (SMPTE 2022-1 column FEC on port + 2, row FEC on port + 4, as asmpsink "
      "fec=auto|fixed sends them) and rebuild lost packets before the jitter buffer; stats "
      "count fec-packets-received and fec-recovered. With srtp-key the parity must carry its "
      "tag under that key (else dropped, srtp-fec-rejected) and rebuilt packets pass srtpdec "
      "like any other", FALSE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  props[PROP_FEC_ADDRESS] = g_param_spec_string ("fec-address", "FEC group",
      "Multicast group of the FEC streams (required with fec=true)", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  g_object_class_install_properties (gobject_class, N_PROPS, props);
  gst_am_srtp_install_property (gobject_class, PROP_SRTP_KEY);
}
