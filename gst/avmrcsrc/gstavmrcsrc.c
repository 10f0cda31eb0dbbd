/* gstavmrcsrc.c - avmrcsrc: a receiver of an AVMRC layered session (avmrclayers). It runs lib/cc's
 * layered receiver (protocol avmrc, rmrc or vmrc), starts with layer 0, joins and leaves the
 * layers' groups while PLAYING as amcc_receiver_wanted_layers says, hands lib/cc every packet of
 * every layer it takes with the packet's stamp, and outputs the layers merged back into one RTP
 * stream in decode order that rtpvp8depay ! vp8dec play at any subscription level.
 *
 *   avmrcsrc address=239.1.3.1 port=5100 layers=3 ! rtpvp8depay ! vp8dec ! autovideosink
 *
 * Inside: one udpsrc per layer (joined only while subscribed: udpsrc joins when it opens and
 * leaves when it closes), each followed by an SRTP decoder slot (gst/common/gstamsrtp.c: srtpdec
 * with srtp-key, a pass-through without) and a fakesink; a probe on the slot's plain side takes
 * the packets to lib/cc and to the merge (gst/common/gstamlayers.h), whose frames leave through
 * an appsrc ghosted as src: with srtp-key only packets that passed authentication. No decision
 * is taken here. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstavmrcsrc.h"

#include <gst/app/gstappsrc.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <stdlib.h>
#include <string.h>
#include <amcc/controller.h>
#include "../common/gstamcc.h"
#include "../common/gstamlayers.h"
#include "../common/gstamnet.h"
#include "../common/gstamtrace.h"
#include "../common/gstamsrtp.h"

GST_DEBUG_CATEGORY_STATIC (avmrcsrc_debug);
#define GST_CAT_DEFAULT avmrcsrc_debug

#define MAX_LAYERS AMCC_AVMRC_MAX_LAYERS
#define DEFAULT_ADDRESS "239.1.3.1"
#define DEFAULT_PORT 5100
#define DEFAULT_LAYERS 3
#define DEFAULT_LATENCY_MS 200
#define DEFAULT_CAPS "application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96"

enum {
  PROP_0, PROP_ADDRESS, PROP_PORT, PROP_LAYERS, PROP_MULTICAST_IFACE, PROP_LOOP, PROP_PROTOCOL,
  PROP_RATES, PROP_LATENCY, PROP_CAPS, PROP_TRACE_DIR, PROP_SUBSCRIBED, PROP_STATS, N_PROPS
};
#define PROP_SRTP_KEY N_PROPS   /* srtp-key (gst/common/gstamsrtp.c) */
static GParamSpec *props[N_PROPS];

typedef struct {
  GstElement *udpsrc, *dec, *sink;     /* dec: the SRTP decoder slot (pass-through when off) */
  GstPad *probe_pad;            /* the slot's plain side, where layer_probe sits */
  gulong probe;
  gboolean joined;              /* its udpsrc runs (the group is joined) */
  amcc_seq seq;
  gint64 lost_before;           /* lost in its sequence spaces before the last join or leave */
  guint64 packets, bytes, stamps_missing, stamps_bad, wrong_layer;
} Layer;

typedef struct { struct _GstAvmrcSrc *self; guint index; } LayerRef;

struct _GstAvmrcSrc {
  GstBin parent;
  GstElement *appsrc;
  GstPad *srcpad;
  GstAmSrtp *srtp;              /* its own lock */

  GMutex lock;                  /* properties and everything below */
  GstAmNetConfig net;
  guint layers;
  gint protocol;
  gchar *rates, *trace_dir;
  guint latency_ms;
  GstCaps *caps;

  guint n;                      /* layers built */
  Layer lay[MAX_LAYERS];
  amcc_receiver *rx;
  GstAmMerge *merge;
  guint wanted;                 /* lib/cc's subscription level (1..n) */
  guint64 changes, not_rtp, after_leave;
  GstAmTrace *rd;
};

G_DEFINE_TYPE (GstAvmrcSrc, gst_avmrc_src, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (avmrcsrc, "avmrcsrc", GST_RANK_NONE,
    GST_TYPE_AVMRC_SRC, GST_DEBUG_CATEGORY_INIT (avmrcsrc_debug, "avmrcsrc", 0,
        "AVMRC layered RTP receiver"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

/* ---------------------------------------------------------------- joining and leaving */

/* Runs on the element's async thread: brings the udpsrcs in line with lib/cc's level. */
static void
apply_layers (GstElement * element, gpointer data)
{
  GstAvmrcSrc *self = GST_AVMRC_SRC (element);
  GstElement *join[MAX_LAYERS], *leave[MAX_LAYERS];
  guint i, nj = 0, nl = 0, joined[MAX_LAYERS];

  g_mutex_lock (&self->lock);
  for (i = 0; i < self->n; i++) {
    Layer *l = &self->lay[i];
    gboolean want = i < self->wanted;
    if (want == l->joined)
      continue;
    l->joined = want;
    l->lost_before += amcc_seq_lost (&l->seq);
    amcc_seq_init (&l->seq);            /* a fresh sequence space: no false loss */
    gst_am_merge_reset_layer (self->merge, i);
    if (want) {
      joined[nj] = i;
      join[nj++] = gst_object_ref (l->udpsrc);
    } else
      leave[nl++] = gst_object_ref (l->udpsrc);
  }
  g_mutex_unlock (&self->lock);
  for (i = 0; i < nl; i++) {
    GST_INFO_OBJECT (self, "leaving %s", GST_OBJECT_NAME (leave[i]));
    gst_am_set_joined (leave[i], FALSE);
    gst_object_unref (leave[i]);
  }
  for (i = 0; i < nj; i++) {
    GST_INFO_OBJECT (self, "joining %s", GST_OBJECT_NAME (join[i]));
    /* srtp-key: the layer's sequence numbers went on while we were away */
    gst_am_srtp_forget (self->srtp, joined[i]);
    gst_am_set_joined (join[i], TRUE);
    gst_object_unref (join[i]);
  }
}

/* ---------------------------------------------------------------- packets */

/* A packet of layer i: to lib/cc (with its stamp) and to the merge; the merge's due frames out. */
static GstPadProbeReturn
layer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  LayerRef *ref = data;
  GstAvmrcSrc *self = ref->self;
  guint i = ref->index, from = 0, to = 0;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  amcc_avmrc_stamp st;
  amcc_packet pk = { 0 };
  gint64 now = gst_am_now ();
  GQueue out = G_QUEUE_INIT;
  GstBuffer *b;
  gint sr;

  if (!(info->type & GST_PAD_PROBE_TYPE_BUFFER))
    return GST_PAD_PROBE_DROP;
  g_mutex_lock (&self->lock);
  if (!self->rx || i >= self->n || i >= self->wanted) {
    self->after_leave++;        /* a layer being left: lib/cc no longer counts it */
    g_mutex_unlock (&self->lock);
    return GST_PAD_PROBE_DROP;
  }
  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp)) {
    self->not_rtp++;
    g_mutex_unlock (&self->lock);
    return GST_PAD_PROBE_DROP;
  }
  pk.ssrc = gst_rtp_buffer_get_ssrc (&rtp);
  pk.seq = gst_rtp_buffer_get_seq (&rtp);
  pk.rtp_ts = gst_rtp_buffer_get_timestamp (&rtp);
  pk.bytes = (guint32) gst_buffer_get_size (buf);
  pk.send_time = AMCC_TIME_NONE;
  pk.layer = i;                 /* the group it came on; the stamp must agree */
  sr = gst_am_avmrc_stamp_read (&rtp, &st);
  gst_rtp_buffer_unmap (&rtp);
  if (sr == 0)
    self->lay[i].stamps_missing++;
  else if (sr < 0)
    self->lay[i].stamps_bad++;
  else if (st.layer != i)
    self->lay[i].wrong_layer++;
  else {
    pk.has_slot = 1;
    pk.send_time = st.send_time;
    pk.slot = st.slot;
    pk.slot_flagged = st.flagged;
  }
  {
    guint64 ext = 0;
    (void) amcc_seq_update (&self->lay[i].seq, pk.seq, &ext);
  }
  self->lay[i].packets++;
  self->lay[i].bytes += pk.bytes;
  amcc_receiver_on_rtp (self->rx, now, &pk);
  if (self->rd)
    gst_am_trace_printf (self->rd, "%.6f id %" G_GUINT64_FORMAT " udp %u layer %u\n",
        gst_am_wall (now) / 1e9, gst_am_wide_id (pk.ssrc, pk.seq), pk.bytes, i);
  gst_am_merge_push (self->merge, gst_buffer_ref (buf), i, now);
  gst_am_merge_pop (self->merge, now, FALSE, &out);
  {
    guint w = amcc_receiver_wanted_layers (self->rx);
    w = CLAMP (w, 1, self->n);
    if (w != self->wanted) {
      from = self->wanted;
      to = self->wanted = w;
      self->changes++;
    }
  }
  g_mutex_unlock (&self->lock);
  while ((b = g_queue_pop_head (&out)))
    gst_app_src_push_buffer (GST_APP_SRC (self->appsrc), b);
  if (to) {
    GST_INFO_OBJECT (self, "layers %u -> %u", from, to);
    gst_element_call_async (GST_ELEMENT (self), apply_layers, NULL, NULL);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("avmrcsrc-layers", "from", G_TYPE_UINT, from, "to", G_TYPE_UINT,
                to, "time", G_TYPE_DOUBLE, gst_am_wall (now) / 1e9, NULL)));
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SUBSCRIBED]);
  }
  return GST_PAD_PROBE_DROP;
}

/* ---------------------------------------------------------------- layers */

/* "r1,r2,..." cumulative kbit/s, increasing; NULL or "": the paper's B_1 = 256, x 1.5 */
static gboolean
parse_rates (const gchar * s, guint n, double *bps, gchar ** why)
{
  gchar **items;
  guint i, k;

  if (!s || !*s)
    return amcc_avmrc_layer_rates (bps, n, AMCC_AVMRC_PAPER_B1_BPS,
        AMCC_AVMRC_PAPER_FACTOR) == AMCC_OK;
  items = g_strsplit (s, ",", -1);
  k = g_strv_length (items);
  for (i = 0; i < k && i < n; i++) {
    gchar *end = NULL;
    double v = g_ascii_strtod (items[i], &end);
    if (!end || *end || v <= 0 || (i > 0 && v * 1e3 <= bps[i - 1])) {
      *why = g_strdup_printf ("rate %u '%s': want increasing kbit/s > 0", i, items[i]);
      break;
    }
    bps[i] = v * 1e3;
  }
  if (!*why && k != n)
    *why = g_strdup_printf ("%u rates for %u layers", k, n);
  g_strfreev (items);
  return *why == NULL;
}

static gboolean
build_layers (GstAvmrcSrc * self)
{
  const amcc_protocol *proto = amcc_protocol_at ((gsize) self->protocol);
  amcc_ctl_config cfg;
  gchar *why = NULL;
  GError *err = NULL;
  guint i;

  g_mutex_lock (&self->lock);
  amcc_ctl_config_init (&cfg);
  cfg.layers = self->layers;
  if (!proto || !proto->max_layers || self->layers > proto->max_layers
      || !parse_rates (self->rates, self->layers, cfg.layer_bps, &why)) {
    g_mutex_unlock (&self->lock);
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL), ("%s", why ? why : "not a layered "
            "protocol"));
    g_free (why);
    return FALSE;
  }
  self->rx = amcc_receiver_new (proto, &cfg, gst_am_now ());
  self->merge = gst_am_merge_new (g_random_int (), (GstClockTime) self->latency_ms * GST_MSECOND);
  if (self->trace_dir) {
    self->rd = gst_am_trace_open (self->trace_dir, "rd.txt", NULL, &err);
    if (!self->rd) {
      GST_WARNING_OBJECT (self, "no trace: %s", err->message);
      g_clear_error (&err);
    }
  }
  g_object_set (self->appsrc, "caps", self->caps, "min-latency",
      (gint64) self->latency_ms * GST_MSECOND, NULL);
  for (i = 0; i < self->layers && self->rx; i++) {
    Layer *l = &self->lay[i];
    gchar *addr = gst_am_layer_address (self->net.address, i), *name;
    gint port = self->net.port + 2 * (gint) i;
    GstPad *src;
    LayerRef *ref;

    if (!addr || port > 65535) {
      g_free (addr);
      why = g_strdup_printf ("layer %u: no address/port from %s:%d", i, self->net.address,
          self->net.port);
      break;
    }
    name = g_strdup_printf ("layer_%u", i);
    l->udpsrc = gst_am_make (GST_BIN (self), "udpsrc", name);
    g_free (name);
    name = g_strdup_printf ("drain_%u", i);
    l->sink = gst_am_make (GST_BIN (self), "fakesink", name);
    g_free (name);
    l->dec = gst_am_srtp_decoder (self->srtp, i);
    gst_bin_add (GST_BIN (self), l->dec);     /* we keep our ref: remove_layers drops it */
    if (!l->udpsrc || !l->sink) {
      g_free (addr);
      break;
    }
    {
      GstAmNetConfig c = self->net;
      c.address = addr;
      gst_am_net_setup_udpsrc (l->udpsrc, &c, port);
    }
    g_free (addr);
    g_object_set (l->udpsrc, "caps", self->caps, NULL);
    g_object_set (l->sink, "sync", FALSE, "async", FALSE, NULL);
    gst_element_link_pads (l->udpsrc, "src", l->dec, "rtp_sink");
    gst_element_link_pads (l->dec, "rtp_src", l->sink, "sink");
    gst_element_set_locked_state (l->udpsrc, i != 0);   /* layer 0 only at first */
    l->joined = i == 0;
    amcc_seq_init (&l->seq);
    l->lost_before = 0;
    l->packets = l->bytes = l->stamps_missing = l->stamps_bad = l->wrong_layer = 0;
    /* what passed authentication (srtp-key; everything when off) */
    src = gst_am_srtp_plain_pad (self->srtp, i, GST_AM_SRTP_RTP_RECV);
    ref = g_new (LayerRef, 1);
    ref->self = self;
    ref->index = i;
    /* the slot outlives the layer (a restart finds it again): the probe goes with the layer */
    l->probe = gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_BUFFER_LIST, layer_probe, ref, g_free);
    l->probe_pad = src;
    self->n = i + 1;
  }
  self->wanted = 1;
  self->changes = self->not_rtp = self->after_leave = 0;
  i = self->n;
  g_mutex_unlock (&self->lock);
  if (!self->rx || i != self->layers) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL), ("%s", why ? why : "could not make the "
            "layers' receivers"));
    g_free (why);
    return FALSE;
  }
  return TRUE;
}

static void
remove_layers (GstAvmrcSrc * self)
{
  Layer lay[MAX_LAYERS];
  guint i, n;
  amcc_receiver *rx;
  GstAmMerge *merge;
  GstAmTrace *rd;

  g_mutex_lock (&self->lock);
  n = self->n;
  memcpy (lay, self->lay, sizeof lay);
  memset (self->lay, 0, sizeof self->lay);
  self->n = 0;
  rx = self->rx;
  self->rx = NULL;
  merge = self->merge;
  self->merge = NULL;
  rd = self->rd;
  self->rd = NULL;
  g_mutex_unlock (&self->lock);
  for (i = 0; i < n; i++) {
    GstElement *e[3] = { lay[i].udpsrc, lay[i].dec, lay[i].sink };
    guint k;
    if (lay[i].probe_pad) {
      gst_pad_remove_probe (lay[i].probe_pad, lay[i].probe);
      gst_object_unref (lay[i].probe_pad);
    }
    for (k = 0; k < 3; k++)
      if (e[k]) {
        gst_element_set_locked_state (e[k], FALSE);
        gst_element_set_state (e[k], GST_STATE_NULL);
        gst_bin_remove (GST_BIN (self), e[k]);
      }
    gst_clear_object (&lay[i].dec);
  }
  if (rx)
    amcc_receiver_free (rx);
  gst_am_merge_free (merge);
  gst_am_trace_close (rd);
}

static GstStateChangeReturn
change_state (GstElement * element, GstStateChange transition)
{
  GstAvmrcSrc *self = GST_AVMRC_SRC (element);
  GstStateChangeReturn ret;

  /* the key first: build_layers makes the layers' decoders for it */
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !gst_am_srtp_start (self->srtp))
    return GST_STATE_CHANGE_FAILURE;
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && (!self->appsrc || !build_layers (self))) {
    remove_layers (self);
    return GST_STATE_CHANGE_FAILURE;
  }
  ret = GST_ELEMENT_CLASS (gst_avmrc_src_parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL
      || (transition == GST_STATE_CHANGE_NULL_TO_READY && ret == GST_STATE_CHANGE_FAILURE))
    remove_layers (self);
  return ret;
}

/* ---------------------------------------------------------------- properties */

static GstStructure *
stats_locked (GstAvmrcSrc * self)
{
  const amcc_protocol *proto = amcc_protocol_at ((gsize) self->protocol);
  GstStructure *s = gst_structure_new ("avmrcsrc-stats",
      "protocol", G_TYPE_STRING, proto ? proto->name : "",
      "layers", G_TYPE_UINT, self->wanted,
      "changes", G_TYPE_UINT64, self->changes,
      "not-rtp", G_TYPE_UINT64, self->not_rtp,
      "after-leave", G_TYPE_UINT64, self->after_leave, NULL);
  guint i, subscribed = 0;

  for (i = 0; i < self->n; i++) {
    Layer *l = &self->lay[i];
    gchar *k[6] = { g_strdup_printf ("packets-%u", i), g_strdup_printf ("lost-%u", i),
      g_strdup_printf ("bytes-%u", i), g_strdup_printf ("stamps-missing-%u", i),
      g_strdup_printf ("stamps-bad-%u", i), g_strdup_printf ("wrong-layer-%u", i) };
    guint j;
    gst_structure_set (s, k[0], G_TYPE_UINT64, l->packets, k[1], G_TYPE_INT64,
        l->lost_before + amcc_seq_lost (&l->seq), k[2], G_TYPE_UINT64, l->bytes, k[3], G_TYPE_UINT64,
        l->stamps_missing, k[4], G_TYPE_UINT64, l->stamps_bad, k[5], G_TYPE_UINT64,
        l->wrong_layer, NULL);
    for (j = 0; j < 6; j++)
      g_free (k[j]);
    subscribed += l->joined;
  }
  gst_structure_set (s, "joined", G_TYPE_UINT, subscribed, NULL);
  gst_am_srtp_add_stats (self->srtp, s);
  if (self->merge) {
    const GstAmMergeStats *m = gst_am_merge_stats (self->merge);
    gst_structure_set (s, "merge-in", G_TYPE_UINT64, m->in, "merge-out", G_TYPE_UINT64, m->out,
        "frames-out", G_TYPE_UINT64, m->frames_out, "frames-incomplete", G_TYPE_UINT64,
        m->frames_incomplete, "late", G_TYPE_UINT64, m->late, NULL);
  }
  if (self->rx) {
    amcc_receiver_stats st;
    memset (&st, 0, sizeof st);
    amcc_receiver_get_stats (self->rx, gst_am_now (), &st);
    gst_structure_set (s, "model-rate", G_TYPE_DOUBLE, st.rate_bps, "loss", G_TYPE_DOUBLE,
        st.loss, "rtt", G_TYPE_DOUBLE, st.rtt_s, "mode", G_TYPE_STRING, st.mode ? st.mode : "",
        "adds", G_TYPE_UINT64, st.stream_ups, "drops", G_TYPE_UINT64, st.stream_downs,
        "packets-lost", G_TYPE_INT64, st.packets_lost, NULL);
  }
  return s;
}

static void
set_property (GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  GstAvmrcSrc *self = GST_AVMRC_SRC (object);

  g_mutex_lock (&self->lock);
  if (!gst_am_net_config_set_property (&self->net, pspec, value)
      && !gst_am_srtp_set_property (self->srtp, pspec, value)) {
    switch (id) {
      case PROP_LAYERS: self->layers = g_value_get_uint (value); break;
      case PROP_PROTOCOL: self->protocol = g_value_get_enum (value); break;
      case PROP_RATES:
        g_free (self->rates);
        self->rates = g_value_dup_string (value);
        break;
      case PROP_LATENCY: self->latency_ms = g_value_get_uint (value); break;
      case PROP_CAPS:
        gst_caps_replace (&self->caps, (GstCaps *) gst_value_get_caps (value));
        if (!self->caps)
          self->caps = gst_caps_from_string (DEFAULT_CAPS);
        break;
      case PROP_TRACE_DIR:
        g_free (self->trace_dir);
        self->trace_dir = g_value_dup_string (value);
        break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
    }
  }
  g_mutex_unlock (&self->lock);
}

static void
get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  GstAvmrcSrc *self = GST_AVMRC_SRC (object);

  g_mutex_lock (&self->lock);
  if (!gst_am_net_config_get_property (&self->net, pspec, value)) {
    switch (id) {
      case PROP_LAYERS: g_value_set_uint (value, self->layers); break;
      case PROP_PROTOCOL: g_value_set_enum (value, self->protocol); break;
      case PROP_RATES: g_value_set_string (value, self->rates); break;
      case PROP_LATENCY: g_value_set_uint (value, self->latency_ms); break;
      case PROP_CAPS: gst_value_set_caps (value, self->caps); break;
      case PROP_TRACE_DIR: g_value_set_string (value, self->trace_dir); break;
      case PROP_SUBSCRIBED: g_value_set_uint (value, self->n ? self->wanted : 0); break;
      case PROP_STATS: g_value_take_boxed (value, stats_locked (self)); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
    }
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_avmrc_src_init (GstAvmrcSrc * self)
{
  GstPad *pad;

  g_mutex_init (&self->lock);
  gst_am_net_config_init (&self->net);
  g_free (self->net.address);
  self->net.address = g_strdup (DEFAULT_ADDRESS);
  self->net.port = DEFAULT_PORT;
  self->layers = DEFAULT_LAYERS;
  self->protocol = gst_am_layered_protocol_default ();
  self->latency_ms = DEFAULT_LATENCY_MS;
  self->caps = gst_caps_from_string (DEFAULT_CAPS);
  self->srtp = gst_am_srtp_new (GST_ELEMENT (self), NULL);
  self->appsrc = gst_am_make (GST_BIN (self), "appsrc", "out");
  self->srcpad = gst_am_ghost_pad_from_static ("src", &src_template);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
  if (!self->appsrc)
    return;
  g_object_set (self->appsrc, "is-live", TRUE, "format", GST_FORMAT_TIME, "do-timestamp", TRUE,
      "max-bytes", (guint64) 4 << 20, NULL);
  pad = gst_element_get_static_pad (self->appsrc, "src");
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), pad);
  gst_object_unref (pad);
}

static void
finalize (GObject * object)
{
  GstAvmrcSrc *self = GST_AVMRC_SRC (object);

  gst_am_net_config_clear (&self->net);
  g_free (self->rates);
  g_free (self->trace_dir);
  gst_clear_caps (&self->caps);
  gst_am_srtp_free (self->srtp);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_avmrc_src_parent_class)->finalize (object);
}

static void
gst_avmrc_src_class_init (GstAvmrcSrcClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  oc->set_property = set_property;
  oc->get_property = get_property;
  oc->finalize = finalize;
  ec->change_state = change_state;

  props[PROP_ADDRESS] = g_param_spec_string ("address", "Address",
      "Group of layer 0 (IPv4); layer i is this address + i (as avmrclayers); a unicast "
      "address listens on every interface", DEFAULT_ADDRESS, rw);
  props[PROP_PORT] = g_param_spec_int ("port", "Port",
      "RTP port of layer 0; layer i uses port + 2 i", 1, 65534, DEFAULT_PORT, rw);
  props[PROP_LAYERS] = g_param_spec_uint ("layers", "Layers",
      "Layers of the session", 1, MAX_LAYERS, DEFAULT_LAYERS, rw);
  props[PROP_MULTICAST_IFACE] = g_param_spec_string ("multicast-iface", "Multicast interface",
      "Network interface to join the groups on (NULL: the kernel's choice)", NULL, rw);
  props[PROP_LOOP] = g_param_spec_boolean ("loop", "Multicast loop",
      "Receive multicast looped back from this host", FALSE, rw);
  props[PROP_PROTOCOL] = g_param_spec_enum ("protocol", "Protocol",
      gst_am_enum_blurb (GST_TYPE_AM_LAYERED_PROTOCOL, "lib/cc's layered controller: ", ""),
      GST_TYPE_AM_LAYERED_PROTOCOL, gst_am_layered_protocol_default (), rw);
  props[PROP_RATES] = g_param_spec_string ("rates", "Layer rates",
      "Cumulative rates B_1..B_n of the layers (kbit/s, increasing, comma-separated; NULL: "
      "the paper's 256 kbit/s x 1.5 per layer)", NULL, rw);
  props[PROP_LATENCY] = g_param_spec_uint ("latency", "Latency",
      "A frame leaves, in timestamp order, once no packet of it came for this long (ms)",
      0, 10000, DEFAULT_LATENCY_MS, rw);
  props[PROP_CAPS] = g_param_spec_boxed ("caps", "Caps",
      "RTP caps of the stream (default " DEFAULT_CAPS ")", GST_TYPE_CAPS, rw);
  props[PROP_TRACE_DIR] = g_param_spec_string ("trace-dir", "Trace directory",
      "rd.txt with a layer column goes here: TIME id N udp SIZE layer L (NULL: no trace)",
      NULL, rw);
  props[PROP_SUBSCRIBED] = g_param_spec_uint ("subscribed", "Subscribed layers",
      "Layers lib/cc wants now (notifies on every change; the bus gets avmrcsrc-layers)",
      0, MAX_LAYERS, 0, ro);
  props[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "layers, joined, changes, adds, drops, mode, model-rate, loss, per layer packets-i lost-i "
      "bytes-i stamps-missing-i stamps-bad-i wrong-layer-i, the merge's frames-out, "
      "frames-incomplete, late, not-rtp, and the srtp-* counters (srtp-rtp-rejected: packets "
      "that failed authentication)", GST_TYPE_STRUCTURE, ro);
  g_object_class_install_properties (oc, N_PROPS, props);
  gst_am_srtp_install_property (oc, PROP_SRTP_KEY);

  gst_element_class_add_static_pad_template (ec, &src_template);
  gst_element_class_set_static_metadata (ec, "AVMRC layered RTP source", "Source/Network/RTP",
      "Receives the layers of an AVMRC session its path carries, joining and leaving their "
      "multicast groups as lib/cc's receiver-driven controller says; outputs one RTP stream",
      "gst-amcast <gst-amcast@localhost>");
  gst_type_mark_as_plugin_api (GST_TYPE_AM_LAYERED_PROTOCOL, 0);
}
