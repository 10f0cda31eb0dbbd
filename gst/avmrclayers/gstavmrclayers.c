/* gstavmrclayers.c - avmrclayers: the server of an AVMRC layered session (papers/003; lib/cc
 * amcc/avmrc.h). One RTP VP8 stream with temporal layers comes in; each packet goes to its
 * layer's RTP session and multicast group by the TID of its payload descriptor, with the layer's
 * own SSRC and sequence numbers (a receiver with fewer layers sees no false loss), stamped with
 * its send time, lib/cc's slot number and add flag, and the layer (RTP header extension,
 * docs/wire-formats.md "AVMRC stamp"). The server hears no receiver.
 *
 *   videotestsrc ! vp8enc (temporal-scalability-*) ! rtpvp8pay ! avmrclayers layers=3
 *
 * Inside, per layer i: pacer -> rtpbin session i -> udpsink (address + i, port + 2 i), RTCP
 * SRs to port + 2 i + 1 (the sessions are the base bin's, gst/common/gstamsessionbin.h). The sink pad's chain routes into the pacers; each layer is paced at
 * what it carried in the last scheduling period (x pacing-factor). Every receiver decision is
 * lib/cc's (avmrcsrc).
 * srtp-key: each session's encoder is a slot of gst/common/gstamsrtp.c (srtpenc: every layer's
 * RTP and SRs encrypted and authenticated, the stamps included); each packet then also carries
 * the layer's extended sequence number (GST_AM_EXT_ID_EXTSEQ), from which a receiver joining
 * the layer late learns the SRTP rollover counter. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstavmrclayers.h"

#include <gst/rtp/gstrtpbuffer.h>
#include "../common/gstamlayers.h"
#include "../common/gstamnet.h"
#include "../common/gstampacer.h"
#include "../common/gstamsrtp.h"
#include <amcc/seq.h>

GST_DEBUG_CATEGORY_STATIC (avmrclayers_debug);
#define GST_CAT_DEFAULT avmrclayers_debug

#define MAX_LAYERS AMCC_AVMRC_MAX_LAYERS
G_STATIC_ASSERT (GST_AM_SESSION_BIN_MAX >= MAX_LAYERS);       /* a session per layer */
#define DEFAULT_ADDRESS "239.1.3.1"
#define DEFAULT_PORT 5100
#define DEFAULT_LAYERS 3
#define DEFAULT_PERIOD_MS 100           /* the paper's scheduling period (= tau) */
#define DEFAULT_PACING_FACTOR 1.5
#define EOS_GUARD_NS GST_SECOND

enum {
  PROP_0, PROP_ADDRESS, PROP_PORT, PROP_LAYERS, PROP_MULTICAST_IFACE, PROP_TTL_MC, PROP_LOOP,
  PROP_SLOT, PROP_N_ADD, PROP_PACING, PROP_PACING_FACTOR, PROP_PERIOD, PROP_STATS, N_PROPS
};
#define PROP_SRTP_KEY N_PROPS   /* srtp-key (gst/common/gstamsrtp.c) */
static GParamSpec *props[N_PROPS];

typedef struct {
  GstElement *pacer;            /* feeds session i of the base bin */
  GstPad *pacer_sink;
  guint32 ssrc;
  guint16 seq;
  amcc_seq_ext seqext;          /* srtp-key: the layer's extended seq, stamped for the ROC */
  guint64 packets, bytes, period_bytes;
  guint rate_bps;               /* the pacer's rate: the last period's */
} Layer;

typedef struct { struct _GstAvmrcLayers *self; guint index; } LayerRef;

struct _GstAvmrcLayers {
  GstAmSessionBin parent;
  GstPad *sinkpad;
  GstAmSrtp *srtp;              /* the base bin's (its own lock) */
  gboolean keyed;               /* srtp-key set at the last start */

  GMutex lock;                  /* everything below */
  GstAmNetConfig *net;          /* the base bin's; address and port: layer 0's */
  guint layers;
  guint slot_ms, n_add;
  gboolean pacing;
  gdouble pacing_factor;
  guint period_ms;
  guint built;
  Layer lay[MAX_LAYERS];
  amcc_avmrc_clock clock;
  gboolean vp8;
  gint64 period_start;
  guint64 not_rtp, truncated, not_vp8, tid_over, stamp_failed;
};

G_DEFINE_TYPE (GstAvmrcLayers, gst_avmrc_layers, GST_TYPE_AM_SESSION_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (avmrclayers, "avmrclayers", GST_RANK_NONE,
    GST_TYPE_AVMRC_LAYERS, GST_DEBUG_CATEGORY_INIT (avmrclayers_debug, "avmrclayers", 0,
        "AVMRC layered RTP sender"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

/* ---------------------------------------------------------------- packets */

/* every period: each layer's pacer at what the layer carried in the last period (a layer of
 * 7.5 frames/s has none in some 100 ms periods) */
static void
pace_locked (GstAvmrcLayers * self, gint64 now)
{
  gint64 span = now - self->period_start;
  guint i;

  if (span < (gint64) self->period_ms * GST_MSECOND)
    return;
  for (i = 0; i < self->built; i++) {
    Layer *l = &self->lay[i];
    if (!l->period_bytes)
      continue;                 /* no frame of this layer in the period: keep its rate */
    l->rate_bps = (guint) MIN (G_MAXUINT, l->period_bytes * 8 * GST_SECOND / (guint64) span);
    l->period_bytes = 0;
    gst_am_pacer_set_rate (GST_AM_PACER (l->pacer), l->rate_bps);
  }
  self->period_start = now;
}

static GstFlowReturn
chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstAvmrcLayers *self = GST_AVMRC_LAYERS (parent);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstAmVp8Result vr = GST_AM_VP8_TRUNCATED;
  guint tid = 0;
  GstPad *target = NULL;
  GstFlowReturn ret;

  if (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp)) {
    vr = gst_am_vp8_tid (gst_rtp_buffer_get_payload (&rtp),
        gst_rtp_buffer_get_payload_len (&rtp), &tid);
    gst_rtp_buffer_unmap (&rtp);
  } else {
    g_mutex_lock (&self->lock);
    self->not_rtp++;
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  buf = gst_buffer_make_writable (buf);
  g_mutex_lock (&self->lock);
  if (!self->vp8)
    self->not_vp8++;
  else if (vr != GST_AM_VP8_OK)
    self->truncated++;
  else if (tid >= self->built)
    self->tid_over++;           /* the encoder has more layers than the session */
  else if (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp)) {
    Layer *l = &self->lay[tid];
    gst_rtp_buffer_set_ssrc (&rtp, l->ssrc);
    gst_rtp_buffer_set_seq (&rtp, l->seq++);
    gst_rtp_buffer_unmap (&rtp);
    l->packets++;
    l->bytes += gst_buffer_get_size (buf);
    l->period_bytes += gst_buffer_get_size (buf);
    pace_locked (self, gst_am_now ());
    target = gst_object_ref (l->pacer_sink);
  }
  g_mutex_unlock (&self->lock);
  if (!target) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  ret = gst_pad_chain (target, buf);
  gst_object_unref (target);
  /* a layer's downstream failing (no route to its group) must not stop the others */
  return ret == GST_FLOW_FLUSHING || ret == GST_FLOW_EOS ? ret : GST_FLOW_OK;
}

static gboolean
sink_event (GstPad * pad, GstObject * parent, GstEvent * ev)
{
  GstAvmrcLayers *self = GST_AVMRC_LAYERS (parent);
  GstPad *targets[MAX_LAYERS];
  guint i, n;

  g_mutex_lock (&self->lock);
  if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
    GstCaps *caps;
    const gchar *enc;
    gst_event_parse_caps (ev, &caps);
    enc = gst_structure_get_string (gst_caps_get_structure (caps, 0), "encoding-name");
    self->vp8 = enc && g_ascii_strcasecmp (enc, "VP8") == 0;
    if (!self->vp8)
      GST_WARNING_OBJECT (self, "not VP8 (%s): packets are counted and dropped", enc);
  }
  n = self->built;
  for (i = 0; i < n; i++)
    targets[i] = gst_object_ref (self->lay[i].pacer_sink);
  g_mutex_unlock (&self->lock);
  for (i = 0; i < n; i++) {
    gst_pad_send_event (targets[i], gst_event_ref (ev));
    gst_object_unref (targets[i]);
  }
  if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS)
    gst_am_session_bin_arm_eos_guards (GST_AM_SESSION_BIN (self), EOS_GUARD_NS);
  if (GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP)
    gst_am_session_bin_reset_eos_guards (GST_AM_SESSION_BIN (self));
  gst_event_unref (ev);
  return TRUE;
}

/* A packet leaving layer i's pacer: the stamp carries the time it actually leaves. */
static GstPadProbeReturn
stamp_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  LayerRef *ref = data;
  GstAvmrcLayers *self = ref->self;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  amcc_avmrc_stamp st = { 0 };
  GstBuffer *buf;
  gboolean ok = FALSE, keyed;
  guint32 extseq = 0;
  guint8 ext[4];

  if (!(info->type & GST_PAD_PROBE_TYPE_BUFFER))
    return GST_PAD_PROBE_OK;
  st.send_time = gst_am_now ();
  st.layer = ref->index;
  buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  if (gst_rtp_buffer_map (buf, GST_MAP_READWRITE, &rtp)) {
    g_mutex_lock (&self->lock);
    st.slot = amcc_avmrc_clock_at (&self->clock, st.send_time, &st.flagged);
    keyed = self->keyed && ref->index < self->built;
    if (keyed)
      extseq = amcc_seq_ext_update (&self->lay[ref->index].seqext,
          gst_rtp_buffer_get_seq (&rtp));
    g_mutex_unlock (&self->lock);
    ok = gst_am_avmrc_stamp_write (&rtp, &st);
    if (keyed) {
      GST_WRITE_UINT32_BE (ext, extseq);
      ok &= gst_rtp_buffer_add_extension_onebyte_header (&rtp, GST_AM_EXT_ID_EXTSEQ, ext, 4);
    }
    gst_rtp_buffer_unmap (&rtp);
  }
  if (!ok) {
    g_mutex_lock (&self->lock);
    self->stamp_failed++;
    g_mutex_unlock (&self->lock);
  }
  return GST_PAD_PROBE_OK;
}

/* ---------------------------------------------------------------- layers */

/* NULL -> READY, called by the base bin (the SRTP key is checked): a pacer and a sending RTP
 * session per layer, on the layer's group and ports */
static gboolean
start (GstAmSessionBin * bin)
{
  GstAvmrcLayers *self = GST_AVMRC_LAYERS (bin);
  amcc_avmrc_params p;
  guint i;

  g_mutex_lock (&self->lock);
  self->keyed = gst_am_srtp_enabled (self->srtp);
  for (i = 0; i < self->layers; i++) {
    Layer *l = &self->lay[i];
    gchar *addr = gst_am_layer_address (self->net->address, i), *name;
    gint port = self->net->port + 2 * (gint) i;
    GstAmSession *s;
    GstPad *src;
    LayerRef *ref;

    if (!addr || port + 1 > 65535) {
      gchar *base = g_strdup (self->net->address);
      gint base_port = self->net->port;
      g_mutex_unlock (&self->lock);     /* a sync bus handler may read our properties */
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL), ("layer %u: no address/port from "
              "%s:%d (IPv4 base + %u, port + %u)", i, base, base_port, i, 2 * i));
      g_free (base);
      g_free (addr);
      return FALSE;
    }
    name = g_strdup_printf ("pacer_%u", i);
    l->pacer = gst_am_pacer_new (name);
    g_free (name);
    gst_bin_add (GST_BIN (self), l->pacer);
    gst_am_pacer_configure (GST_AM_PACER (l->pacer), self->pacing, self->pacing_factor,
        self->period_ms, GST_AM_PACER_SLOT_MS);
    gst_am_pacer_set_rate (GST_AM_PACER (l->pacer), 0);
    self->built = i + 1;        /* its pacer goes in stop */
    name = g_strdup_printf ("_%u", i);
    s = gst_am_session_bin_add (bin, GST_AM_SESSION_SEND, name, l->pacer);
    g_free (name);
    if (!s) {
      g_free (addr);
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
    gst_am_session_bin_set_address (bin, s, addr, port, NULL);
    g_free (addr);
    l->pacer_sink = gst_element_get_static_pad (l->pacer, "sink");
    src = gst_element_get_static_pad (l->pacer, "src");
    ref = g_new (LayerRef, 1);
    ref->self = self;
    ref->index = i;
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, stamp_probe, ref, g_free);
    gst_object_unref (src);
    l->ssrc = g_random_int ();
    l->seq = (guint16) g_random_int ();
    memset (&l->seqext, 0, sizeof l->seqext);
    l->packets = l->bytes = l->period_bytes = 0;
    l->rate_bps = 0;
  }
  amcc_avmrc_params_init (&p);
  p.tau = (amcc_time) self->slot_ms * GST_MSECOND;
  p.n_add = self->n_add;
  amcc_avmrc_clock_init (&self->clock, gst_am_now (), &p);
  self->period_start = gst_am_now ();
  self->not_rtp = self->truncated = self->not_vp8 = self->tid_over = self->stamp_failed = 0;
  self->vp8 = TRUE;             /* until caps say otherwise */
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/* READY -> NULL and a failed start: the pacers (the base bin removes the sessions) */
static void
stop (GstAmSessionBin * bin)
{
  GstAvmrcLayers *self = GST_AVMRC_LAYERS (bin);
  Layer lay[MAX_LAYERS];
  guint i, n;

  g_mutex_lock (&self->lock);
  n = self->built;
  memcpy (lay, self->lay, sizeof lay);
  memset (self->lay, 0, sizeof self->lay);
  self->built = 0;
  g_mutex_unlock (&self->lock);
  for (i = 0; i < n; i++) {
    gst_clear_object (&lay[i].pacer_sink);
    gst_element_set_state (lay[i].pacer, GST_STATE_NULL);
    gst_bin_remove (GST_BIN (self), lay[i].pacer);
  }
}

static GstStateChangeReturn
change_state (GstElement * element, GstStateChange transition)
{
  GstAvmrcLayers *self = GST_AVMRC_LAYERS (element);

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    amcc_avmrc_params p;
    g_mutex_lock (&self->lock);
    amcc_avmrc_params_init (&p);
    p.tau = (amcc_time) self->slot_ms * GST_MSECOND;
    p.n_add = self->n_add;
    amcc_avmrc_clock_init (&self->clock, gst_am_now (), &p);      /* slot 0 starts now */
    g_mutex_unlock (&self->lock);
  }
  return GST_ELEMENT_CLASS (gst_avmrc_layers_parent_class)->change_state (element, transition);
}

/* ---------------------------------------------------------------- properties */

static GstStructure *
stats_locked (GstAvmrcLayers * self)
{
  GstStructure *s = gst_structure_new ("avmrclayers-stats",
      "layers", G_TYPE_UINT, self->built,
      "slot", G_TYPE_UINT, self->built ? amcc_avmrc_clock_at (&self->clock, gst_am_now (),
          NULL) : 0u,
      "not-rtp", G_TYPE_UINT64, self->not_rtp,
      "truncated", G_TYPE_UINT64, self->truncated,
      "not-vp8", G_TYPE_UINT64, self->not_vp8,
      "tid-over", G_TYPE_UINT64, self->tid_over,
      "stamp-failed", G_TYPE_UINT64, self->stamp_failed, NULL);
  guint i;

  gst_am_srtp_add_stats (self->srtp, s);

  for (i = 0; i < self->built; i++) {
    gchar *k = g_strdup_printf ("packets-%u", i), *b = g_strdup_printf ("bytes-%u", i),
        *s1 = g_strdup_printf ("ssrc-%u", i), *r = g_strdup_printf ("rate-%u", i);
    gst_structure_set (s, k, G_TYPE_UINT64, self->lay[i].packets, b, G_TYPE_UINT64,
        self->lay[i].bytes, s1, G_TYPE_UINT, self->lay[i].ssrc, r, G_TYPE_UINT,
        self->lay[i].rate_bps, NULL);
    g_free (k);
    g_free (b);
    g_free (s1);
    g_free (r);
  }
  return s;
}

static void
set_property (GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  GstAvmrcLayers *self = GST_AVMRC_LAYERS (object);

  g_mutex_lock (&self->lock);
  if (!gst_am_net_config_set_property (self->net, pspec, value)
      && !gst_am_srtp_set_property (self->srtp, pspec, value)) {
    switch (id) {
      case PROP_LAYERS: self->layers = g_value_get_uint (value); break;
      case PROP_SLOT: self->slot_ms = g_value_get_uint (value); break;
      case PROP_N_ADD: self->n_add = g_value_get_uint (value); break;
      case PROP_PACING: self->pacing = g_value_get_boolean (value); break;
      case PROP_PACING_FACTOR: self->pacing_factor = g_value_get_double (value); break;
      case PROP_PERIOD: self->period_ms = g_value_get_uint (value); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
    }
  }
  g_mutex_unlock (&self->lock);
}

static void
get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  GstAvmrcLayers *self = GST_AVMRC_LAYERS (object);

  g_mutex_lock (&self->lock);
  if (!gst_am_net_config_get_property (self->net, pspec, value)) {
    switch (id) {
      case PROP_LAYERS: g_value_set_uint (value, self->layers); break;
      case PROP_SLOT: g_value_set_uint (value, self->slot_ms); break;
      case PROP_N_ADD: g_value_set_uint (value, self->n_add); break;
      case PROP_PACING: g_value_set_boolean (value, self->pacing); break;
      case PROP_PACING_FACTOR: g_value_set_double (value, self->pacing_factor); break;
      case PROP_PERIOD: g_value_set_uint (value, self->period_ms); break;
      case PROP_STATS: g_value_take_boxed (value, stats_locked (self)); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
    }
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_avmrc_layers_init (GstAvmrcLayers * self)
{
  amcc_avmrc_params p;

  g_mutex_init (&self->lock);
  self->net = gst_am_session_bin_net (GST_AM_SESSION_BIN (self));
  g_free (self->net->address);
  self->net->address = g_strdup (DEFAULT_ADDRESS);
  self->net->port = DEFAULT_PORT;
  self->layers = DEFAULT_LAYERS;
  amcc_avmrc_params_init (&p);
  self->slot_ms = (guint) (p.tau / GST_MSECOND);
  self->n_add = p.n_add;
  self->pacing = TRUE;
  self->pacing_factor = DEFAULT_PACING_FACTOR;
  self->period_ms = DEFAULT_PERIOD_MS;
  self->vp8 = TRUE;
  self->srtp = gst_am_session_bin_srtp (GST_AM_SESSION_BIN (self));
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, chain);
  gst_pad_set_event_function (self->sinkpad, sink_event);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
}

static void
finalize (GObject * object)
{
  GstAvmrcLayers *self = GST_AVMRC_LAYERS (object);

  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_avmrc_layers_parent_class)->finalize (object);
}

static void
gst_avmrc_layers_class_init (GstAvmrcLayersClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;
  amcc_avmrc_params p;

  amcc_avmrc_params_init (&p);
  oc->set_property = set_property;
  oc->get_property = get_property;
  oc->finalize = finalize;
  ec->change_state = change_state;
  GST_AM_SESSION_BIN_CLASS (klass)->start = start;
  GST_AM_SESSION_BIN_CLASS (klass)->stop = stop;

  props[PROP_ADDRESS] = g_param_spec_string ("address", "Address",
      "Group of layer 0 (IPv4); layer i goes to this address + i", DEFAULT_ADDRESS, rw);
  props[PROP_PORT] = g_param_spec_int ("port", "Port",
      "RTP port of layer 0; layer i uses port + 2 i (its RTCP SRs port + 2 i + 1)", 1, 65534,
      DEFAULT_PORT, rw);
  props[PROP_LAYERS] = g_param_spec_uint ("layers", "Layers",
      "Layers of the session: packets whose TID is >= layers are dropped (counted in tid-over)",
      1, MAX_LAYERS, DEFAULT_LAYERS, rw);
  props[PROP_MULTICAST_IFACE] = g_param_spec_string ("multicast-iface", "Multicast interface",
      "Network interface to send on (NULL: the kernel's choice)", NULL, rw);
  props[PROP_TTL_MC] = g_param_spec_int ("ttl-mc", "Multicast TTL",
      "TTL of the packets (hops)", 0, 255, 1, rw);
  props[PROP_LOOP] = g_param_spec_boolean ("loop", "Multicast loop",
      "Loop multicast back to this host", FALSE, rw);
  props[PROP_SLOT] = g_param_spec_uint ("slot-duration", "Slot duration",
      "Time slot tau of lib/cc's slot clock (ms; the paper: 100)", 1, 60000,
      (guint) (p.tau / GST_MSECOND), rw);
  props[PROP_N_ADD] = g_param_spec_uint ("n-add", "Add-slot period",
      "Every n-add-th slot is flagged as an add slot (weak synchronisation; the paper: 20)",
      1, 100000, p.n_add, rw);
  props[PROP_PACING] = g_param_spec_boolean ("pacing", "Pacing",
      "Pace each layer at what it carried in the last scheduling period x pacing-factor",
      TRUE, rw);
  props[PROP_PACING_FACTOR] = g_param_spec_double ("pacing-factor", "Pacing factor",
      "Each layer leaves at most this many times its rate of the last period", 1.0, 10.0,
      DEFAULT_PACING_FACTOR, rw);
  props[PROP_PERIOD] = g_param_spec_uint ("period", "Scheduling period",
      "Scheduling period (ms): the pacers' rates are updated this often, and no packet waits "
      "longer in a pacer", 1, 10000, DEFAULT_PERIOD_MS, rw);
  props[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "layers, slot, per layer packets-i bytes-i ssrc-i rate-i, and the bad input counted: "
      "not-rtp, truncated (VP8 descriptor), not-vp8, tid-over, stamp-failed; the srtp-* "
      "counters (gst/common/gstamsrtp.h)", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (oc, N_PROPS, props);
  gst_am_srtp_install_property (oc, PROP_SRTP_KEY);

  gst_element_class_add_static_pad_template (ec, &sink_template);
  gst_element_class_set_static_metadata (ec, "AVMRC layered RTP sink", "Sink/Network/RTP",
      "Sends the temporal layers of an RTP VP8 stream to one multicast group each, stamped "
      "for receiver-driven layered congestion control (AVMRC, RMRC, VMRC)",
      "gst-amcast <gst-amcast@localhost>");
}
