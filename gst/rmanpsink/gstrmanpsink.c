/* gstrmanpsink.c - RMANP source (papers/004) as a sink: the bytes it renders go into lib/cc's
 * source role (amcc_rmanp_source_write), which cuts them into data packets; what the role's poll
 * returns goes to the multicast group at the rate it paces, CI / NACK / ACK from the children
 * (unicast to our port) go back into it. render blocks while the role's window is full (nothing
 * is dropped); at EOS the last packet leaves with FIN and EOS passes on only when every child
 * has ACKed it. Sockets, threads, timer, stats: gst/common/gstamrmanp.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstrmanpsink.h"
#include "common/gstamnet.h"
#include "common/gstamrmanp.h"

GST_DEBUG_CATEGORY_STATIC (rmanpsink_debug);
#define GST_CAT_DEFAULT rmanpsink_debug

struct _GstRmanpSink {
  GstBaseSink parent;
  GstAmNetConfig net;           /* object lock */
  gint local_port;
  guint stats_ms;
  struct amcc_rmanp_params params;
  GstAmRmanpIo io;              /* io.lock: the role, flushing */
  gboolean flushing;
};

enum {
  PROP_0, PROP_ADDRESS, PROP_PORT, PROP_IFACE, PROP_TTL, PROP_LOOP, PROP_LOCAL_PORT,
  PROP_STATS_INTERVAL, PROP_STATS,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

G_DEFINE_TYPE (GstRmanpSink, gst_rmanp_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (rmanpsink, "rmanpsink", GST_RANK_NONE,
    GST_TYPE_RMANP_SINK, GST_DEBUG_CATEGORY_INIT (rmanpsink_debug, "rmanpsink", 0,
        "RMANP reliable multicast source"));

/* the role, behind the io's ops */
static void
op_on_packet (gpointer r, gint64 now, gboolean from_parent, const guint8 * b, gsize n)
{
  amcc_rmanp_source_on_packet (r, now, b, n);
}

static int
op_poll (gpointer r, gint64 now, guint8 * b, gsize cap, amcc_rmanp_dir * dir)
{
  return amcc_rmanp_source_poll (r, now, b, cap, dir);
}

static gint64 op_next_due (gpointer r, gint64 now) { return amcc_rmanp_source_next_due (r, now); }
static void
op_stats (gpointer r, struct amcc_rmanp_stats *st)
{
  amcc_rmanp_source_get_stats (r, st);
}

static const GstAmRmanpRoleOps source_ops = { op_on_packet, op_poll, op_next_due, op_stats };

static gboolean
gst_rmanp_sink_start (GstBaseSink * bs)
{
  GstRmanpSink *self = GST_RMANP_SINK (bs);
  struct amcc_rmanp_params p;
  amcc_rmanp_source *src;
  GError *err = NULL;
  gint local_port;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  p = self->params;
  local_port = self->local_port;
  ok = gst_am_rmanp_io_open_down (&self->io, self->net.address, self->net.port,
      self->net.iface, self->net.ttl, self->net.loop, &local_port, &err);
  if (ok)
    self->local_port = local_port;
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ_WRITE, (NULL), ("%s", err->message));
    g_error_free (err);
    gst_am_rmanp_io_stop (&self->io);
    return FALSE;
  }
  src = amcc_rmanp_source_new (&p, gst_am_now ());
  if (!src) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL), ("invalid RMANP parameters"));
    gst_am_rmanp_io_stop (&self->io);
    return FALSE;
  }
  g_object_notify (G_OBJECT (self), "local-port");
  GST_INFO_OBJECT (self, "sending to %s:%d from port %d", self->net.address, self->net.port,
      local_port);
  self->flushing = FALSE;
  gst_am_rmanp_io_start (&self->io, src, self->stats_ms);
  return TRUE;
}

static gboolean
gst_rmanp_sink_stop (GstBaseSink * bs)
{
  GstRmanpSink *self = GST_RMANP_SINK (bs);

  amcc_rmanp_source_free (gst_am_rmanp_io_stop (&self->io));
  return TRUE;
}

static gboolean
gst_rmanp_sink_unlock (GstBaseSink * bs)
{
  GstRmanpSink *self = GST_RMANP_SINK (bs);

  g_mutex_lock (&self->io.lock);
  self->flushing = TRUE;
  g_cond_broadcast (&self->io.cond);
  g_mutex_unlock (&self->io.lock);
  return TRUE;
}

static gboolean
gst_rmanp_sink_unlock_stop (GstBaseSink * bs)
{
  GstRmanpSink *self = GST_RMANP_SINK (bs);

  g_mutex_lock (&self->io.lock);
  self->flushing = FALSE;
  g_mutex_unlock (&self->io.lock);
  return TRUE;
}

static GstFlowReturn
gst_rmanp_sink_render (GstBaseSink * bs, GstBuffer * buf)
{
  GstRmanpSink *self = GST_RMANP_SINK (bs);
  GstFlowReturn ret = GST_FLOW_OK;
  GstMapInfo map;
  gsize off = 0;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return GST_FLOW_ERROR;
  g_mutex_lock (&self->io.lock);
  while (off < map.size) {
    gsize took;

    if (self->flushing || !self->io.role) {
      ret = GST_FLOW_FLUSHING;
      break;
    }
    took = amcc_rmanp_source_write (self->io.role, map.data + off, map.size - off);
    off += took;
    self->io.bytes += took;
    if (took)
      gst_am_rmanp_io_run_locked (&self->io);
    else                        /* the window is full: wait for ACKs */
      g_cond_wait (&self->io.cond, &self->io.lock);
  }
  gst_am_rmanp_io_unlock (&self->io);
  gst_buffer_unmap (buf, &map);
  return ret;
}

static gboolean
gst_rmanp_sink_event (GstBaseSink * bs, GstEvent * event)
{
  GstRmanpSink *self = GST_RMANP_SINK (bs);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    GstStructure *last = NULL;

    g_mutex_lock (&self->io.lock);
    if (self->io.role) {
      amcc_rmanp_source_finish (self->io.role);
      gst_am_rmanp_io_run_locked (&self->io);
    }
    while (!self->flushing && self->io.role && !amcc_rmanp_source_done (self->io.role))
      g_cond_wait (&self->io.cond, &self->io.lock);
    if (self->io.role)
      last = gst_am_rmanp_io_stats_locked (&self->io);
    GST_INFO_OBJECT (self, "end of stream %s", self->flushing ? "interrupted" :
        "ACKed by every child");
    gst_am_rmanp_io_unlock (&self->io);
    if (last)
      gst_am_rmanp_io_post_stats (&self->io, last);
  }
  return GST_BASE_SINK_CLASS (gst_rmanp_sink_parent_class)->event (bs, event);
}

static void
gst_rmanp_sink_set_property (GObject * obj, guint id, const GValue * v, GParamSpec * ps)
{
  GstRmanpSink *self = GST_RMANP_SINK (obj);

  GST_OBJECT_LOCK (self);
  if (id == PROP_LOCAL_PORT)
    self->local_port = g_value_get_int (v);
  else if (id == PROP_STATS_INTERVAL)
    self->stats_ms = g_value_get_uint (v);
  else if (!gst_am_net_config_set_property (&self->net, ps, v)
      && !gst_am_rmanp_param_set (&self->params, id, FALSE, v)
      && !gst_am_rmanp_io_set_key (&self->io, id, v))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rmanp_sink_get_property (GObject * obj, guint id, GValue * v, GParamSpec * ps)
{
  GstRmanpSink *self = GST_RMANP_SINK (obj);

  if (id == PROP_STATS) {
    g_mutex_lock (&self->io.lock);
    g_value_take_boxed (v, gst_am_rmanp_io_stats_locked (&self->io));
    g_mutex_unlock (&self->io.lock);
    return;
  }
  GST_OBJECT_LOCK (self);
  if (id == PROP_LOCAL_PORT)
    g_value_set_int (v, self->local_port);
  else if (id == PROP_STATS_INTERVAL)
    g_value_set_uint (v, self->stats_ms);
  else if (!gst_am_net_config_get_property (&self->net, ps, v)
      && !gst_am_rmanp_param_get (&self->params, id, FALSE, v))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rmanp_sink_finalize (GObject * obj)
{
  GstRmanpSink *self = GST_RMANP_SINK (obj);

  gst_am_net_config_clear (&self->net);
  gst_am_rmanp_io_clear (&self->io);
  G_OBJECT_CLASS (gst_rmanp_sink_parent_class)->finalize (obj);
}

static void
gst_rmanp_sink_init (GstRmanpSink * self)
{
  gst_am_net_config_init (&self->net);
  g_free (self->net.address);
  self->net.address = g_strdup (GST_AM_RMANP_DEFAULT_ADDRESS);
  self->net.port = GST_AM_RMANP_DEFAULT_PORT;
  self->stats_ms = GST_AM_RMANP_DEFAULT_STATS_MS;
  amcc_rmanp_params_init (&self->params);
  gst_am_rmanp_io_init (&self->io, GST_ELEMENT (self), "rmanpsink-stats", &source_ops);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}

static void
gst_rmanp_sink_class_init (GstRmanpSinkClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bc = GST_BASE_SINK_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  oc->set_property = gst_rmanp_sink_set_property;
  oc->get_property = gst_rmanp_sink_get_property;
  oc->finalize = gst_rmanp_sink_finalize;
  g_object_class_install_property (oc, PROP_ADDRESS, g_param_spec_string ("address", "Address",
          "Group (or unicast address) the data packets go to", GST_AM_RMANP_DEFAULT_ADDRESS, rw));
  g_object_class_install_property (oc, PROP_PORT, g_param_spec_int ("port", "Port",
          "Destination port of the data packets", 1, 65535, GST_AM_RMANP_DEFAULT_PORT, rw));
  g_object_class_install_property (oc, PROP_IFACE, g_param_spec_string ("multicast-iface",
          "Multicast interface", "Interface the data packets leave by (NULL: the route's)",
          NULL, rw));
  g_object_class_install_property (oc, PROP_TTL, g_param_spec_int ("ttl-mc", "Multicast TTL",
          "TTL of the data packets", 0, 255, 1, rw));
  g_object_class_install_property (oc, PROP_LOOP, g_param_spec_boolean ("loop", "Loop",
          "Deliver our own multicast to receivers on this host", FALSE, rw));
  g_object_class_install_property (oc, PROP_LOCAL_PORT, g_param_spec_int ("local-port",
          "Local port", "Port the data leaves from and the children's CI / NACK / ACK arrive "
          "at (0: any free port, read back after start)", 0, 65535, 0,
          rw | G_PARAM_EXPLICIT_NOTIFY));
  g_object_class_install_property (oc, PROP_STATS_INTERVAL, g_param_spec_uint
      ("stats-interval", "Stats interval", "Milliseconds between rmanpsink-stats element "
          "messages (0: none; one more at EOS)", 0, 3600000, GST_AM_RMANP_DEFAULT_STATS_MS, rw));
  g_object_class_install_property (oc, PROP_STATS, g_param_spec_boxed ("stats", "Stats",
          "The source role's counters now (fields as in the rmanpsink-stats message)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_MIN_RATE, FALSE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_PACKET_SIZE, FALSE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_WINDOW, FALSE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_INCREASE, FALSE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_AUTH_KEY, FALSE);

  gst_element_class_add_static_pad_template (ec, &sink_template);
  gst_element_class_set_static_metadata (ec, "RMANP reliable multicast sink", "Sink/Network",
      "Sends any byte stream reliably to an RMANP tree (papers/004): data packets on a multicast "
      "group at the rate the source role allows, retransmissions on NACK, EOS once every child "
      "has ACKed the end", "gst-amcast <gst-amcast@localhost>");
  bc->start = gst_rmanp_sink_start;
  bc->stop = gst_rmanp_sink_stop;
  bc->unlock = gst_rmanp_sink_unlock;
  bc->unlock_stop = gst_rmanp_sink_unlock_stop;
  bc->render = gst_rmanp_sink_render;
  bc->event = gst_rmanp_sink_event;
}
