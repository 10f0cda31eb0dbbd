/* gstasspsimulcast.c - asspsimulcast: the same content as K streams on K multicast groups, each
 * with its own encoder and its own ASMP controller within the stream's limits (ASSP, papers/001).
 *
 *   videotestsrc ! tee name=t
 *     t. ! queue ! x264enc ! rtph264pay ! s.sink_0
 *     t. ! queue ! videoscale ! video/x-raw,width=640 ! x264enc ! rtph264pay ! s.sink_1
 *   asspsimulcast name=s sink_0::address=239.1.2.3 sink_1::address=239.1.2.4
 *
 * Inside: one asmpsink per request pad ("stream_N"), configured from the pad's properties and
 * the bin's; the streams' lib/cc controllers are tied (amcc_sender_group) and share one lock, so
 * each stream's SR carries every stream's average and limits. Each asmpsink drives the encoder
 * upstream of its own pad, once per GOP. The bin only wires; lib/cc decides. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstasspsimulcast.h"

#include <amcc/assp.h>
#include <glib/gstdio.h>
#include <gst/video/video-event.h>
#include "../asmpsink/gstasmpsink.h"
#include "../common/gstamsrtp.h"
#include "../common/gstamnet.h"

GST_DEBUG_CATEGORY_STATIC (asspsimulcast_debug);
#define GST_CAT_DEFAULT asspsimulcast_debug

/* the paper's streams (papers/001 3.1) for the first three pads; later pads must be set */
static const guint DEFAULT_LOW[] = { 100000, 200000, 600000 };
static const guint DEFAULT_HIGH[] = { 200000, 500000, 1000000 };
#define DEFAULT_KEY_INTERVAL_MS 1000

/* ---------------------------------------------------------------- pad */

enum {
  PAD_PROP_0, PAD_PROP_ADDRESS, PAD_PROP_PORT, PAD_PROP_MIN, PAD_PROP_MAX, PAD_PROP_KEY_REQUESTS,
  PAD_PROP_KEY_FORWARDED, PAD_N_PROPS
};
static GParamSpec *pad_props[PAD_N_PROPS];

struct _GstAsspSimulcastPad {
  GstGhostPad parent;
  guint index;                  /* stream index (sink_N) */
  gchar *address;               /* all guarded by the object lock */
  gint port;
  guint min_bps, max_bps;
  GstElement *sink;             /* the stream's asmpsink (owned by the bin) */
  gint64 key_at;                /* last key-frame request passed to the encoder */
  guint64 key_requests, key_forwarded;
  struct _GstAsspSimulcast *bin;
};

G_DEFINE_TYPE (GstAsspSimulcastPad, gst_assp_simulcast_pad, GST_TYPE_GHOST_PAD);

static void
pad_set_property (GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  GstAsspSimulcastPad *p = GST_ASSP_SIMULCAST_PAD (object);

  GST_OBJECT_LOCK (p);
  switch (id) {
    case PAD_PROP_ADDRESS:
      g_free (p->address);
      p->address = g_value_dup_string (value);
      break;
    case PAD_PROP_PORT: p->port = g_value_get_int (value); break;
    case PAD_PROP_MIN: p->min_bps = g_value_get_uint (value); break;
    case PAD_PROP_MAX: p->max_bps = g_value_get_uint (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
  }
  GST_OBJECT_UNLOCK (p);
}

static void
pad_get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  GstAsspSimulcastPad *p = GST_ASSP_SIMULCAST_PAD (object);

  GST_OBJECT_LOCK (p);
  switch (id) {
    case PAD_PROP_ADDRESS: g_value_set_string (value, p->address); break;
    case PAD_PROP_PORT: g_value_set_int (value, p->port); break;
    case PAD_PROP_MIN: g_value_set_uint (value, p->min_bps); break;
    case PAD_PROP_MAX: g_value_set_uint (value, p->max_bps); break;
    case PAD_PROP_KEY_REQUESTS: g_value_set_uint64 (value, p->key_requests); break;
    case PAD_PROP_KEY_FORWARDED: g_value_set_uint64 (value, p->key_forwarded); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
  }
  GST_OBJECT_UNLOCK (p);
}

static void
pad_finalize (GObject * object)
{
  g_free (GST_ASSP_SIMULCAST_PAD (object)->address);
  gst_clear_object (&GST_ASSP_SIMULCAST_PAD (object)->sink);
  G_OBJECT_CLASS (gst_assp_simulcast_pad_parent_class)->finalize (object);
}

static void
gst_assp_simulcast_pad_init (GstAsspSimulcastPad * p)
{
}

static void
gst_assp_simulcast_pad_class_init (GstAsspSimulcastPadClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  oc->set_property = pad_set_property;
  oc->get_property = pad_get_property;
  oc->finalize = pad_finalize;
  pad_props[PAD_PROP_ADDRESS] = g_param_spec_string ("address", "Address",
      "Multicast group of this stream (default 239.1.2.(3 + N) for sink_N); RTCP to the same "
      "group on port + 1", NULL, rw);
  pad_props[PAD_PROP_PORT] = g_param_spec_int ("port", "Port",
      "RTP port of this stream (default 5004 + 2 N; RTCP on port + 1)", 1, 65534,
      GST_AM_DEFAULT_PORT, rw);
  pad_props[PAD_PROP_MIN] = g_param_spec_uint ("min-bitrate", "Lower limit",
      "The stream's lower limit (bit/s); it starts there (defaults for sink_0..2: the paper's "
      "100, 200, 600 kbit/s; required for later pads)", 0, G_MAXUINT, 0, rw);
  pad_props[PAD_PROP_MAX] = g_param_spec_uint ("max-bitrate", "Upper limit",
      "The stream's upper limit (bit/s; defaults for sink_0..2: 200, 500, 1000 kbit/s)",
      0, G_MAXUINT, 0, rw);
  pad_props[PAD_PROP_KEY_REQUESTS] = g_param_spec_uint64 ("key-requests", "Key-frame requests",
      "Key-frame requests (RTCP PLI/FIR from switching receivers) that reached this stream",
      0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  pad_props[PAD_PROP_KEY_FORWARDED] = g_param_spec_uint64 ("key-forwarded",
      "Key-frame requests forwarded", "Of those, the ones passed on to the encoder (one per "
      "key-interval; the rest share its key frame)", 0, G_MAXUINT64, 0,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (oc, PAD_N_PROPS, pad_props);
}

/* ---------------------------------------------------------------- bin */

enum {
  PROP_0, PROP_MULTICAST_IFACE, PROP_TTL_MC, PROP_LOOP, PROP_RTCP_INTERVAL, PROP_TRACE_DIR,
  PROP_KEY_INTERVAL, N_PROPS
};
#define PROP_SRTP_KEY N_PROPS   /* srtp-key, handed to every stream's asmpsink */
static GParamSpec *props[N_PROPS];

struct _GstAsspSimulcast {
  GstBin parent;
  GMutex cc_lock;               /* the streams' state (their asmpsinks take it) */
  GMutex lock;                  /* the properties below and pads */
  gchar *iface, *trace_dir;
  gint ttl;
  gboolean loop;
  guint rtcp_interval_ms;
  gchar *srtp_key;
  guint key_interval_ms;        /* at most one key-frame request per stream per interval */
  GPtrArray *pads;              /* GstAsspSimulcastPad, by index; NULL holes after release */
};

G_DEFINE_TYPE (GstAsspSimulcast, gst_assp_simulcast, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (asspsimulcast, "asspsimulcast", GST_RANK_NONE,
    GST_TYPE_ASSP_SIMULCAST, GST_DEBUG_CATEGORY_INIT (asspsimulcast_debug, "asspsimulcast", 0,
        "ASSP simulcast RTP sender"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink_%u",
    GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS ("application/x-rtp"));

/* Key-frame requests of switching receivers (rtpbin turns their PLI/FIR into an upstream
 * GstForceKeyUnit on the stream's sink pad): one per stream per key-interval reaches the
 * encoder, the others are answered by that key frame. */
static GstPadProbeReturn
key_request_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstAsspSimulcastPad *p = data;
  GstAsspSimulcast *self = p->bin;
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
  gint64 now = gst_am_now (), interval;
  gboolean pass;

  if (!ev || GST_EVENT_TYPE (ev) != GST_EVENT_CUSTOM_UPSTREAM
      || !gst_video_event_is_force_key_unit (ev))
    return GST_PAD_PROBE_OK;
  g_mutex_lock (&self->lock);
  interval = (gint64) self->key_interval_ms * GST_MSECOND;
  g_mutex_unlock (&self->lock);
  GST_OBJECT_LOCK (p);
  p->key_requests++;
  pass = p->key_forwarded == 0 || now - p->key_at >= interval;
  if (pass) {
    p->key_at = now;
    p->key_forwarded++;
  }
  GST_OBJECT_UNLOCK (p);
  GST_DEBUG_OBJECT (p, "key-frame request %s", pass ? "forwarded" : "shares the last one");
  return pass ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP;
}

static GstPad *
request_new_pad (GstElement * element, GstPadTemplate * templ, const gchar * name,
    const GstCaps * caps)
{
  GstAsspSimulcast *self = GST_ASSP_SIMULCAST (element);
  GstAsspSimulcastPad *p;
  GstElement *sink;
  GstPad *target;
  guint i;
  gchar *pname, *sname;

  if (GST_STATE (element) > GST_STATE_NULL) {
    GST_WARNING_OBJECT (self, "streams are added in NULL state only");
    return NULL;
  }
  g_mutex_lock (&self->lock);
  if (name && sscanf (name, "sink_%u", &i) == 1) {
    if (i < self->pads->len && g_ptr_array_index (self->pads, i)) {
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  } else {
    for (i = 0; i < self->pads->len && g_ptr_array_index (self->pads, i); i++);
  }
  if (i >= AMCC_ASSP_MAX_STREAMS) {
    g_mutex_unlock (&self->lock);
    GST_WARNING_OBJECT (self, "at most %d streams", AMCC_ASSP_MAX_STREAMS);
    return NULL;
  }
  if (i >= self->pads->len)
    g_ptr_array_set_size (self->pads, i + 1);
  pname = g_strdup_printf ("sink_%u", i);
  sname = g_strdup_printf ("stream_%u", i);
  sink = gst_element_factory_make ("asmpsink", sname);
  g_free (sname);
  if (!sink) {
    g_free (pname);
    g_mutex_unlock (&self->lock);
    return NULL;
  }
  gst_asmp_sink_join_group (GST_ASMP_SINK (sink), &self->cc_lock,
      amcc_protocol_find ("assp"));
  gst_bin_add (GST_BIN (self), sink);
  target = gst_element_get_static_pad (sink, "sink");
  p = g_object_new (GST_TYPE_ASSP_SIMULCAST_PAD, "name", pname, "direction", GST_PAD_SINK,
      "template", templ, NULL);
  g_free (pname);
  gst_ghost_pad_set_target (GST_GHOST_PAD (p), target);
  p->index = i;
  p->sink = gst_object_ref (sink);     /* the bin's dispose may drop it before the pad */
  p->bin = self;
  gst_pad_add_probe (target, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, key_request_probe, p, NULL);
  gst_object_unref (target);
  p->address = g_strdup_printf ("239.1.2.%u", 3 + i);
  p->port = GST_AM_DEFAULT_PORT + 2 * (gint) i;
  p->min_bps = i < G_N_ELEMENTS (DEFAULT_LOW) ? DEFAULT_LOW[i] : 0;
  p->max_bps = i < G_N_ELEMENTS (DEFAULT_HIGH) ? DEFAULT_HIGH[i] : 0;
  g_ptr_array_index (self->pads, i) = p;
  g_mutex_unlock (&self->lock);
  gst_pad_set_active (GST_PAD (p), TRUE);
  gst_element_add_pad (element, GST_PAD (p));
  return GST_PAD (p);
}

static void
release_pad (GstElement * element, GstPad * pad)
{
  GstAsspSimulcast *self = GST_ASSP_SIMULCAST (element);
  GstAsspSimulcastPad *p = GST_ASSP_SIMULCAST_PAD (pad);
  GstElement *sink;

  g_mutex_lock (&self->lock);
  g_ptr_array_index (self->pads, p->index) = NULL;
  while (self->pads->len && !g_ptr_array_index (self->pads, self->pads->len - 1))
    g_ptr_array_set_size (self->pads, self->pads->len - 1);
  sink = p->sink;
  p->sink = NULL;
  g_mutex_unlock (&self->lock);
  gst_element_remove_pad (element, pad);
  if (sink) {
    if (GST_OBJECT_PARENT (sink) == GST_OBJECT (self)) {     /* not yet removed by dispose */
      gst_element_set_state (sink, GST_STATE_NULL);
      gst_bin_remove (GST_BIN (self), sink);
    }
    gst_object_unref (sink);
  }
}

/* NULL -> READY, before the children start: each stream's asmpsink from its pad and the bin.
 * Streams must be numbered 0..K-1 without holes (the table carries them by index). */
static gboolean
configure_streams (GstAsspSimulcast * self)
{
  guint i, n;

  g_mutex_lock (&self->lock);
  if (!gst_am_srtp_check_key (GST_ELEMENT (self), self->srtp_key)) {
    g_mutex_unlock (&self->lock);
    return FALSE;
  }
  n = self->pads->len;
  for (i = 0; i < n; i++) {
    GstAsspSimulcastPad *p = g_ptr_array_index (self->pads, i);
    gchar *dir = NULL;
    if (!p) {
      g_mutex_unlock (&self->lock);
      GST_ELEMENT_ERROR (self, CORE, PAD, (NULL), ("sink_%u is missing: streams are "
              "numbered 0..K-1", i));
      return FALSE;
    }
    GST_OBJECT_LOCK (p);
    if (p->min_bps == 0 || p->max_bps < p->min_bps) {
      GST_OBJECT_UNLOCK (p);
      g_mutex_unlock (&self->lock);
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL), ("sink_%u: need 0 < min-bitrate <= "
              "max-bitrate", i));
      return FALSE;
    }
    if (self->trace_dir) {
      dir = g_strdup_printf ("%s/stream%u", self->trace_dir, i);
      g_mkdir_with_parents (dir, 0755);
    }
    /* each stream starts at its lower limit (spec/assp.md) */
    g_object_set (p->sink, "address", p->address, "port", p->port, "initial-bitrate",
        p->min_bps, "min-bitrate", p->min_bps, "max-bitrate", p->max_bps, "multicast-iface",
        self->iface, "ttl-mc", self->ttl, "loop", self->loop, "rtcp-interval",
        self->rtcp_interval_ms, "trace-dir", dir, "srtp-key", self->srtp_key, NULL);
    GST_OBJECT_UNLOCK (p);
    g_free (dir);
  }
  g_mutex_unlock (&self->lock);
  if (n == 0) {
    GST_ELEMENT_ERROR (self, CORE, PAD, (NULL), ("no stream: request sink_0 .. sink_K-1"));
    return FALSE;
  }
  return TRUE;
}

/* READY: every asmpsink has its controller; tie them (their SRs then carry every stream) */
static gboolean
tie_streams (GstAsspSimulcast * self)
{
  amcc_sender *cc[AMCC_ASSP_MAX_STREAMS];
  guint i, n;
  int ret;

  g_mutex_lock (&self->lock);
  n = self->pads->len;
  g_mutex_lock (&self->cc_lock);
  for (i = 0; i < n; i++)
    cc[i] = gst_asmp_sink_controller (GST_ASMP_SINK (GST_ASSP_SIMULCAST_PAD
            (g_ptr_array_index (self->pads, i))->sink));
  ret = amcc_sender_group (cc, n);
  g_mutex_unlock (&self->cc_lock);
  g_mutex_unlock (&self->lock);
  if (ret != AMCC_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL), ("lib/cc could not tie the %u streams: %s",
            n, amcc_strerror (ret)));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "%u streams tied", n);
  return TRUE;
}

static GstStateChangeReturn
change_state (GstElement * element, GstStateChange transition)
{
  GstAsspSimulcast *self = GST_ASSP_SIMULCAST (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !configure_streams (self))
    return GST_STATE_CHANGE_FAILURE;
  ret = GST_ELEMENT_CLASS (gst_assp_simulcast_parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE)
    return ret;
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !tie_streams (self))
    return GST_STATE_CHANGE_FAILURE;
  return ret;
}

static void
set_property (GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  GstAsspSimulcast *self = GST_ASSP_SIMULCAST (object);

  g_mutex_lock (&self->lock);
  switch (id) {
    case PROP_MULTICAST_IFACE:
      g_free (self->iface);
      self->iface = g_value_dup_string (value);
      break;
    case PROP_TTL_MC: self->ttl = g_value_get_int (value); break;
    case PROP_LOOP: self->loop = g_value_get_boolean (value); break;
    case PROP_RTCP_INTERVAL: self->rtcp_interval_ms = g_value_get_uint (value); break;
    case PROP_KEY_INTERVAL: self->key_interval_ms = g_value_get_uint (value); break;
    case PROP_SRTP_KEY:
      g_free (self->srtp_key);
      self->srtp_key = g_value_dup_string (value);
      break;
    case PROP_TRACE_DIR:
      g_free (self->trace_dir);
      self->trace_dir = g_value_dup_string (value);
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
  }
  g_mutex_unlock (&self->lock);
}

static void
get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  GstAsspSimulcast *self = GST_ASSP_SIMULCAST (object);

  g_mutex_lock (&self->lock);
  switch (id) {
    case PROP_MULTICAST_IFACE: g_value_set_string (value, self->iface); break;
    case PROP_TTL_MC: g_value_set_int (value, self->ttl); break;
    case PROP_LOOP: g_value_set_boolean (value, self->loop); break;
    case PROP_RTCP_INTERVAL: g_value_set_uint (value, self->rtcp_interval_ms); break;
    case PROP_TRACE_DIR: g_value_set_string (value, self->trace_dir); break;
    case PROP_KEY_INTERVAL: g_value_set_uint (value, self->key_interval_ms); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_assp_simulcast_init (GstAsspSimulcast * self)
{
  g_mutex_init (&self->cc_lock);
  g_mutex_init (&self->lock);
  self->ttl = 1;
  self->rtcp_interval_ms = GST_AM_DEFAULT_RTCP_INTERVAL_MS;
  self->key_interval_ms = DEFAULT_KEY_INTERVAL_MS;
  self->pads = g_ptr_array_new ();
}

static void
finalize (GObject * object)
{
  GstAsspSimulcast *self = GST_ASSP_SIMULCAST (object);

  g_ptr_array_unref (self->pads);
  g_free (self->srtp_key);
  g_free (self->iface);
  g_free (self->trace_dir);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->cc_lock);
  G_OBJECT_CLASS (gst_assp_simulcast_parent_class)->finalize (object);
}

static void
gst_assp_simulcast_class_init (GstAsspSimulcastClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  oc->set_property = set_property;
  oc->get_property = get_property;
  oc->finalize = finalize;
  ec->change_state = change_state;
  ec->request_new_pad = request_new_pad;
  ec->release_pad = release_pad;

  props[PROP_MULTICAST_IFACE] = g_param_spec_string ("multicast-iface", "Multicast interface",
      "Network interface of every stream's group (NULL: the kernel's choice)", NULL, rw);
  props[PROP_TTL_MC] = g_param_spec_int ("ttl-mc", "Multicast TTL",
      "TTL of every stream's RTP and RTCP packets (hops)", 0, 255, 1, rw);
  props[PROP_LOOP] = g_param_spec_boolean ("loop", "Multicast loop",
      "Loop multicast back to this host (receivers in the same network namespace)", FALSE, rw);
  props[PROP_RTCP_INTERVAL] = g_param_spec_uint ("rtcp-interval", "RTCP interval",
      "Minimum RTCP interval of every stream's session (ms)", 1, 600000,
      GST_AM_DEFAULT_RTCP_INTERVAL_MS, rw);
  props[PROP_TRACE_DIR] = g_param_spec_string ("trace-dir", "Trace directory",
      "Each stream's sd.txt and rate.csv go to <trace-dir>/stream<N> (NULL: no traces)", NULL,
      rw);
  props[PROP_KEY_INTERVAL] = g_param_spec_uint ("key-interval", "Key-frame request interval",
      "Receivers switching to a stream ask for a key frame (RTCP PLI); at most one request per "
      "stream per this interval reaches its encoder (ms; 0 = every request)", 0, 600000,
      DEFAULT_KEY_INTERVAL_MS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (oc, N_PROPS, props);
  gst_am_srtp_install_property (oc, PROP_SRTP_KEY);     /* every stream's session */

  gst_element_class_add_static_pad_template_with_gtype (ec, &sink_template,
      GST_TYPE_ASSP_SIMULCAST_PAD);
  gst_element_class_set_static_metadata (ec, "ASSP simulcast RTP sink", "Sink/Network/RTP",
      "Sends K encodings of the same content to K multicast groups, each adapted by its own "
      "ASMP controller within its limits; receivers pick the stream their path carries (ASSP)",
      "gst-amcast <gst-amcast@localhost>");
  gst_type_mark_as_plugin_api (GST_TYPE_ASSP_SIMULCAST_PAD, 0);
}
