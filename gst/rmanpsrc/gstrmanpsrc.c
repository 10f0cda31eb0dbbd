/* gstrmanpsrc.c - RMANP receiver (papers/004) as a source: joins its parent's group, gives every
 * datagram to lib/cc's receiver role and outputs what amcc_rmanp_receiver_read returns - the
 * stream in order and complete; the role's ACK / NACK / CI go to the parent (the sender of the
 * data, unless `control-address` names it). EOS when the role says every byte up to the FIN
 * was read, after `linger`, during which the role keeps ACKing (a lost final ACK is repeated).
 * Sockets, threads, timer, stats: gst/common/gstamrmanp.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstrmanpsrc.h"
#include "common/gstamnet.h"
#include "common/gstamrmanp.h"

GST_DEBUG_CATEGORY_STATIC (rmanpsrc_debug);
#define GST_CAT_DEFAULT rmanpsrc_debug

#define DEFAULT_LINGER_MS 2000

struct _GstRmanpSrc {
  GstPushSrc parent;
  GstAmNetConfig net;           /* object lock (ttl and loop unused: we send only unicast) */
  gchar *parent_addr;
  guint node, node_used;
  guint linger_ms, stats_ms;
  struct amcc_rmanp_params params;
  GstAmRmanpIo io;              /* io.lock: the role, flushing, done_at */
  gboolean flushing;
  gint64 done_at;               /* monotonic us when the stream was complete, 0 = not yet */
};

enum {
  PROP_0, PROP_ADDRESS, PROP_PORT, PROP_IFACE, PROP_PARENT, PROP_NODE, PROP_LINGER,
  PROP_STATS_INTERVAL, PROP_STATS,
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

G_DEFINE_TYPE (GstRmanpSrc, gst_rmanp_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (rmanpsrc, "rmanpsrc", GST_RANK_NONE,
    GST_TYPE_RMANP_SRC, GST_DEBUG_CATEGORY_INIT (rmanpsrc_debug, "rmanpsrc", 0,
        "RMANP reliable multicast receiver"));

static void
op_on_packet (gpointer r, gint64 now, gboolean from_parent, const guint8 * b, gsize n)
{
  amcc_rmanp_receiver_on_packet (r, now, b, n);
}

static int
op_poll (gpointer r, gint64 now, guint8 * b, gsize cap, amcc_rmanp_dir * dir)
{
  return amcc_rmanp_receiver_poll (r, now, b, cap, dir);
}

static gint64 op_next_due (gpointer r, gint64 now) { return amcc_rmanp_receiver_next_due (r, now); }
static void
op_stats (gpointer r, struct amcc_rmanp_stats *st)
{
  amcc_rmanp_receiver_get_stats (r, st);
}

static const GstAmRmanpRoleOps receiver_ops = { op_on_packet, op_poll, op_next_due, op_stats };

static gboolean
gst_rmanp_src_start (GstBaseSrc * bs)
{
  GstRmanpSrc *self = GST_RMANP_SRC (bs);
  struct amcc_rmanp_params p;
  amcc_rmanp_receiver *rx;
  GError *err = NULL;
  gboolean ok;
  guint node;

  GST_OBJECT_LOCK (self);
  p = self->params;
  /* 0: a random id (it must differ from the parent's other children's) */
  node = self->node ? self->node : (guint) g_random_int_range (1, G_MAXINT32);
  self->node_used = node;
  ok = gst_am_rmanp_io_open_up (&self->io, self->net.address, self->net.port,
      self->net.iface, self->net.loop, self->parent_addr, &err);
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ_WRITE, (NULL), ("%s", err->message));
    g_error_free (err);
    gst_am_rmanp_io_stop (&self->io);
    return FALSE;
  }
  rx = amcc_rmanp_receiver_new (&p, node, gst_am_now ());
  if (!rx) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL), ("invalid RMANP parameters"));
    gst_am_rmanp_io_stop (&self->io);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "node %u listening on %s:%d", node, self->net.address, self->net.port);
  self->flushing = FALSE;
  self->done_at = 0;
  gst_am_rmanp_io_start (&self->io, rx, self->stats_ms);
  return TRUE;
}

static gboolean
gst_rmanp_src_stop (GstBaseSrc * bs)
{
  GstRmanpSrc *self = GST_RMANP_SRC (bs);

  amcc_rmanp_receiver_free (gst_am_rmanp_io_stop (&self->io));
  return TRUE;
}

static gboolean
gst_rmanp_src_unlock (GstBaseSrc * bs)
{
  GstRmanpSrc *self = GST_RMANP_SRC (bs);

  g_mutex_lock (&self->io.lock);
  self->flushing = TRUE;
  g_cond_broadcast (&self->io.cond);
  g_mutex_unlock (&self->io.lock);
  return TRUE;
}

static gboolean
gst_rmanp_src_unlock_stop (GstBaseSrc * bs)
{
  GstRmanpSrc *self = GST_RMANP_SRC (bs);

  g_mutex_lock (&self->io.lock);
  self->flushing = FALSE;
  g_mutex_unlock (&self->io.lock);
  return TRUE;
}

static GstFlowReturn
gst_rmanp_src_create (GstPushSrc * ps, GstBuffer ** out)
{
  GstRmanpSrc *self = GST_RMANP_SRC (ps);
  guint blocksize = gst_base_src_get_blocksize (GST_BASE_SRC (ps));
  GstBuffer *buf = gst_buffer_new_allocate (NULL, blocksize, NULL);
  GstFlowReturn ret = GST_FLOW_OK;
  GstStructure *last = NULL;
  GstMapInfo map;
  gsize n = 0;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  g_mutex_lock (&self->io.lock);
  for (;;) {
    if (self->flushing || !self->io.role) {
      ret = GST_FLOW_FLUSHING;
      break;
    }
    if ((n = amcc_rmanp_receiver_read (self->io.role, map.data, blocksize)) > 0) {
      GST_BUFFER_OFFSET (buf) = self->io.bytes;
      self->io.bytes += n;
      GST_BUFFER_OFFSET_END (buf) = self->io.bytes;
      gst_am_rmanp_io_run_locked (&self->io);     /* the window moved: ACK it now */
      break;
    }
    if (amcc_rmanp_receiver_done (self->io.role)) {
      gint64 now = g_get_monotonic_time ();
      if (!self->done_at) {
        self->done_at = now;
        GST_INFO_OBJECT (self, "stream complete: %" G_GUINT64_FORMAT " bytes", self->io.bytes);
      }
      if (now >= self->done_at + (gint64) self->linger_ms * 1000) {
        last = gst_am_rmanp_io_stats_locked (&self->io);
        ret = GST_FLOW_EOS;
        break;
      }
      g_cond_wait_until (&self->io.cond, &self->io.lock,
          self->done_at + (gint64) self->linger_ms * 1000);
      continue;
    }
    g_cond_wait (&self->io.cond, &self->io.lock);
  }
  gst_am_rmanp_io_unlock (&self->io);
  gst_buffer_unmap (buf, &map);
  if (last)
    gst_am_rmanp_io_post_stats (&self->io, last);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return ret;
  }
  gst_buffer_set_size (buf, n);
  *out = buf;
  return GST_FLOW_OK;
}

static void
gst_rmanp_src_set_property (GObject * obj, guint id, const GValue * v, GParamSpec * ps)
{
  GstRmanpSrc *self = GST_RMANP_SRC (obj);

  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_PARENT:
      g_free (self->parent_addr);
      self->parent_addr = g_value_dup_string (v);
      break;
    case PROP_NODE: self->node = g_value_get_uint (v); break;
    case PROP_LINGER: self->linger_ms = g_value_get_uint (v); break;
    case PROP_STATS_INTERVAL: self->stats_ms = g_value_get_uint (v); break;
    default:
      if (!gst_am_net_config_set_property (&self->net, ps, v)
          && !gst_am_rmanp_param_set (&self->params, id, FALSE, v)
          && !gst_am_rmanp_io_set_key (&self->io, id, v))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rmanp_src_get_property (GObject * obj, guint id, GValue * v, GParamSpec * ps)
{
  GstRmanpSrc *self = GST_RMANP_SRC (obj);

  if (id == PROP_STATS) {
    g_mutex_lock (&self->io.lock);
    g_value_take_boxed (v, gst_am_rmanp_io_stats_locked (&self->io));
    g_mutex_unlock (&self->io.lock);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_PARENT: g_value_set_string (v, self->parent_addr); break;
    case PROP_NODE: g_value_set_uint (v, self->node_used ? self->node_used : self->node); break;
    case PROP_LINGER: g_value_set_uint (v, self->linger_ms); break;
    case PROP_STATS_INTERVAL: g_value_set_uint (v, self->stats_ms); break;
    default:
      if (!gst_am_net_config_get_property (&self->net, ps, v)
          && !gst_am_rmanp_param_get (&self->params, id, FALSE, v))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rmanp_src_finalize (GObject * obj)
{
  GstRmanpSrc *self = GST_RMANP_SRC (obj);

  gst_am_net_config_clear (&self->net);
  g_free (self->parent_addr);
  gst_am_rmanp_io_clear (&self->io);
  G_OBJECT_CLASS (gst_rmanp_src_parent_class)->finalize (obj);
}

static void
gst_rmanp_src_init (GstRmanpSrc * self)
{
  gst_am_net_config_init (&self->net);
  g_free (self->net.address);
  self->net.address = g_strdup (GST_AM_RMANP_DEFAULT_ADDRESS);
  self->net.port = GST_AM_RMANP_DEFAULT_PORT;
  self->linger_ms = DEFAULT_LINGER_MS;
  self->stats_ms = GST_AM_RMANP_DEFAULT_STATS_MS;
  amcc_rmanp_params_init (&self->params);
  gst_am_rmanp_io_init (&self->io, GST_ELEMENT (self), "rmanpsrc-stats", &receiver_ops);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_BYTES);
}

static void
gst_rmanp_src_class_init (GstRmanpSrcClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bc = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pc = GST_PUSH_SRC_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  oc->set_property = gst_rmanp_src_set_property;
  oc->get_property = gst_rmanp_src_get_property;
  oc->finalize = gst_rmanp_src_finalize;
  g_object_class_install_property (oc, PROP_ADDRESS, g_param_spec_string ("address", "Address",
          "Group of the parent (source or relay) to join (a unicast address: listen on it)",
          GST_AM_RMANP_DEFAULT_ADDRESS, rw));
  g_object_class_install_property (oc, PROP_PORT, g_param_spec_int ("port", "Port",
          "Port the data packets arrive at", 1, 65535, GST_AM_RMANP_DEFAULT_PORT, rw));
  g_object_class_install_property (oc, PROP_IFACE, g_param_spec_string ("multicast-iface",
          "Multicast interface", "Interface to join the group on (NULL: the route's)",
          NULL, rw));
  g_object_class_install_property (oc, PROP_PARENT, g_param_spec_string ("control-address",
          "Control address", "host:port CI / NACK / ACK go to (NULL: the address the data "
          "comes from)", NULL, rw));
  g_object_class_install_property (oc, PROP_NODE, g_param_spec_uint ("node", "Node",
          "Our id in CI / NACK / ACK, unique among the parent's children (0: random, read back "
          "after start)", 0, G_MAXUINT32, 0, rw));
  g_object_class_install_property (oc, PROP_LINGER, g_param_spec_uint ("linger", "Linger",
          "Milliseconds the receiver keeps ACKing after the stream is complete, before EOS "
          "(a lost final ACK is repeated every second)", 0, 600000, DEFAULT_LINGER_MS, rw));
  g_object_class_install_property (oc, PROP_STATS_INTERVAL, g_param_spec_uint
      ("stats-interval", "Stats interval", "Milliseconds between rmanpsrc-stats element "
          "messages (0: none; one more at EOS)", 0, 3600000, GST_AM_RMANP_DEFAULT_STATS_MS, rw));
  g_object_class_install_property (oc, PROP_STATS, g_param_spec_boxed ("stats", "Stats",
          "The receiver role's counters now (fields as in the rmanpsrc-stats message)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_PACKET_SIZE, FALSE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_WINDOW, FALSE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_AUTH_KEY, FALSE);

  gst_element_class_add_static_pad_template (ec, &src_template);
  gst_element_class_set_static_metadata (ec, "RMANP reliable multicast source", "Source/Network",
      "Receives the byte stream of an RMANP session (papers/004) from its parent's multicast "
      "group, in order and complete (NACKs for what is missing, ACKs and congestion "
      "indications to the parent); EOS when the sender's data is complete",
      "gst-amcast <gst-amcast@localhost>");
  bc->start = gst_rmanp_src_start;
  bc->stop = gst_rmanp_src_stop;
  bc->unlock = gst_rmanp_src_unlock;
  bc->unlock_stop = gst_rmanp_src_unlock_stop;
  pc->create = gst_rmanp_src_create;
}
