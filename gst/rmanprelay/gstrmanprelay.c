/* gstrmanprelay.c - RMANP active relay (papers/004) as an element with no pads: it owns two
 * sockets, joins its parent's group (up) and sends on its own group (down), and moves every
 * datagram through lib/cc's relay role (amcc_rmanp_relay_*: rate control, new_queue, cache,
 * local repair, ACK aggregation). No pads because nothing of the session passes through the
 * pipeline: `gst-launch-1.0 rmanprelay ...` is the relay program, and an application can put
 * one in any pipeline. The role's own API is used (not amcc/controller.h's relay table) for its
 * parameters and counters. Runs from PAUSED to READY; it never posts EOS (a relay does not
 * know the session ended: stop it). Sockets, threads, timer, stats: gst/common/gstamrmanp.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstrmanprelay.h"
#include "common/gstamnet.h"
#include "common/gstamrmanp.h"

GST_DEBUG_CATEGORY_STATIC (rmanprelay_debug);
#define GST_CAT_DEFAULT rmanprelay_debug

#define DEFAULT_DOWN_ADDRESS "239.1.4.2"
#define DEFAULT_DOWN_PORT 5202

struct _GstRmanpRelay {
  GstElement parent;
  GstAmNetConfig net;           /* down side; object lock */
  gchar *up_address, *up_iface, *parent_addr;
  gint up_port, local_port;
  guint node, node_used, stats_ms;
  struct amcc_rmanp_params params;
  GstAmRmanpIo io;
};

enum {
  PROP_0, PROP_ADDRESS, PROP_PORT, PROP_IFACE, PROP_TTL, PROP_LOOP, PROP_LOCAL_PORT,
  PROP_UP_ADDRESS, PROP_UP_PORT, PROP_UP_IFACE, PROP_PARENT, PROP_NODE, PROP_STATS_INTERVAL,
  PROP_STATS, PROP_MEMORY,
};

G_DEFINE_TYPE (GstRmanpRelay, gst_rmanp_relay, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (rmanprelay, "rmanprelay", GST_RANK_NONE,
    GST_TYPE_RMANP_RELAY, GST_DEBUG_CATEGORY_INIT (rmanprelay_debug, "rmanprelay", 0,
        "RMANP active relay"));

static void
op_on_packet (gpointer r, gint64 now, gboolean from_parent, const guint8 * b, gsize n)
{
  amcc_rmanp_relay_on_packet (r, now, from_parent, b, n);
}

static int
op_poll (gpointer r, gint64 now, guint8 * b, gsize cap, amcc_rmanp_dir * dir)
{
  return amcc_rmanp_relay_poll (r, now, b, cap, dir);
}

static gint64 op_next_due (gpointer r, gint64 now) { return amcc_rmanp_relay_next_due (r, now); }
static void
op_stats (gpointer r, struct amcc_rmanp_stats *st)
{
  amcc_rmanp_relay_get_stats (r, st);
}

static const GstAmRmanpRoleOps relay_ops = { op_on_packet, op_poll, op_next_due, op_stats };

static gboolean
gst_rmanp_relay_start (GstRmanpRelay * self)
{
  struct amcc_rmanp_params p;
  amcc_rmanp_relay *r;
  GError *err = NULL;
  gboolean ok;
  gint local_port;
  guint node;

  GST_OBJECT_LOCK (self);
  p = self->params;
  node = self->node ? self->node : (guint) g_random_int_range (1, G_MAXINT32);
  self->node_used = node;
  local_port = self->local_port;
  ok = gst_am_rmanp_io_open_up (&self->io, self->up_address, self->up_port, self->up_iface,
      self->net.loop, self->parent_addr, &err)
      && gst_am_rmanp_io_open_down (&self->io, self->net.address, self->net.port,
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
  r = amcc_rmanp_relay_new (&p, node, gst_am_now ());
  if (!r) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL), ("invalid RMANP parameters"));
    gst_am_rmanp_io_stop (&self->io);
    return FALSE;
  }
  g_object_notify (G_OBJECT (self), "local-port");
  GST_INFO_OBJECT (self, "node %u: %s:%d -> %s:%d (port %d)", node, self->up_address,
      self->up_port, self->net.address, self->net.port, local_port);
  gst_am_rmanp_io_start (&self->io, r, self->stats_ms);
  return TRUE;
}

static GstStateChangeReturn
gst_rmanp_relay_change_state (GstElement * el, GstStateChange t)
{
  GstRmanpRelay *self = GST_RMANP_RELAY (el);
  GstStateChangeReturn ret;

  if (t == GST_STATE_CHANGE_READY_TO_PAUSED && !gst_rmanp_relay_start (self))
    return GST_STATE_CHANGE_FAILURE;
  ret = GST_ELEMENT_CLASS (gst_rmanp_relay_parent_class)->change_state (el, t);
  if (t == GST_STATE_CHANGE_PAUSED_TO_READY)
    amcc_rmanp_relay_free (gst_am_rmanp_io_stop (&self->io));
  return ret;
}

static void
gst_rmanp_relay_set_property (GObject * obj, guint id, const GValue * v, GParamSpec * ps)
{
  GstRmanpRelay *self = GST_RMANP_RELAY (obj);

  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_UP_ADDRESS:
      g_free (self->up_address);
      self->up_address = g_value_dup_string (v);
      break;
    case PROP_UP_IFACE:
      g_free (self->up_iface);
      self->up_iface = g_value_dup_string (v);
      break;
    case PROP_PARENT:
      g_free (self->parent_addr);
      self->parent_addr = g_value_dup_string (v);
      break;
    case PROP_UP_PORT: self->up_port = g_value_get_int (v); break;
    case PROP_LOCAL_PORT: self->local_port = g_value_get_int (v); break;
    case PROP_NODE: self->node = g_value_get_uint (v); break;
    case PROP_STATS_INTERVAL: self->stats_ms = g_value_get_uint (v); break;
    default:
      if (!gst_am_net_config_set_property (&self->net, ps, v)
          && !gst_am_rmanp_param_set (&self->params, id, TRUE, v)
          && !gst_am_rmanp_io_set_key (&self->io, id, v))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rmanp_relay_get_property (GObject * obj, guint id, GValue * v, GParamSpec * ps)
{
  GstRmanpRelay *self = GST_RMANP_RELAY (obj);

  if (id == PROP_STATS || id == PROP_MEMORY) {
    g_mutex_lock (&self->io.lock);
    if (id == PROP_STATS)
      g_value_take_boxed (v, gst_am_rmanp_io_stats_locked (&self->io));
    else
      g_value_set_uint64 (v, self->io.role ? amcc_rmanp_relay_memory (self->io.role) : 0);
    g_mutex_unlock (&self->io.lock);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_UP_ADDRESS: g_value_set_string (v, self->up_address); break;
    case PROP_UP_IFACE: g_value_set_string (v, self->up_iface); break;
    case PROP_PARENT: g_value_set_string (v, self->parent_addr); break;
    case PROP_UP_PORT: g_value_set_int (v, self->up_port); break;
    case PROP_LOCAL_PORT: g_value_set_int (v, self->local_port); break;
    case PROP_NODE: g_value_set_uint (v, self->node_used ? self->node_used : self->node); break;
    case PROP_STATS_INTERVAL: g_value_set_uint (v, self->stats_ms); break;
    default:
      if (!gst_am_net_config_get_property (&self->net, ps, v)
          && !gst_am_rmanp_param_get (&self->params, id, TRUE, v))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rmanp_relay_finalize (GObject * obj)
{
  GstRmanpRelay *self = GST_RMANP_RELAY (obj);

  gst_am_net_config_clear (&self->net);
  g_free (self->up_address);
  g_free (self->up_iface);
  g_free (self->parent_addr);
  gst_am_rmanp_io_clear (&self->io);
  G_OBJECT_CLASS (gst_rmanp_relay_parent_class)->finalize (obj);
}

static void
gst_rmanp_relay_init (GstRmanpRelay * self)
{
  gst_am_net_config_init (&self->net);
  g_free (self->net.address);
  self->net.address = g_strdup (DEFAULT_DOWN_ADDRESS);
  self->net.port = DEFAULT_DOWN_PORT;
  self->up_address = g_strdup (GST_AM_RMANP_DEFAULT_ADDRESS);
  self->up_port = GST_AM_RMANP_DEFAULT_PORT;
  self->stats_ms = GST_AM_RMANP_DEFAULT_STATS_MS;
  amcc_rmanp_params_init (&self->params);
  gst_am_rmanp_io_init (&self->io, GST_ELEMENT (self), "rmanprelay-stats", &relay_ops);
}

static void
gst_rmanp_relay_class_init (GstRmanpRelayClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  oc->set_property = gst_rmanp_relay_set_property;
  oc->get_property = gst_rmanp_relay_get_property;
  oc->finalize = gst_rmanp_relay_finalize;
  g_object_class_install_property (oc, PROP_UP_ADDRESS, g_param_spec_string ("parent-address",
          "Parent address", "The parent's group to join (a unicast address: listen on it)",
          GST_AM_RMANP_DEFAULT_ADDRESS, rw));
  g_object_class_install_property (oc, PROP_UP_PORT, g_param_spec_int ("parent-port",
          "Parent port", "Port the parent's data packets arrive at", 1, 65535,
          GST_AM_RMANP_DEFAULT_PORT, rw));
  g_object_class_install_property (oc, PROP_UP_IFACE, g_param_spec_string ("parent-iface",
          "Parent interface", "Interface to join the parent's group on (NULL: the route's)",
          NULL, rw));
  g_object_class_install_property (oc, PROP_PARENT, g_param_spec_string ("control-address",
          "Control address", "host:port CI / NACK / ACK go to (NULL: the address the data "
          "comes from)", NULL, rw));
  g_object_class_install_property (oc, PROP_ADDRESS, g_param_spec_string ("address", "Address",
          "Our group: where the session is forwarded to the children", DEFAULT_DOWN_ADDRESS,
          rw));
  g_object_class_install_property (oc, PROP_PORT, g_param_spec_int ("port", "Port",
          "Destination port on our group", 1, 65535, DEFAULT_DOWN_PORT, rw));
  g_object_class_install_property (oc, PROP_IFACE, g_param_spec_string ("multicast-iface",
          "Multicast interface", "Interface our group is sent on (NULL: the route's)", NULL,
          rw));
  g_object_class_install_property (oc, PROP_TTL, g_param_spec_int ("ttl-mc", "Multicast TTL",
          "TTL of the packets on our group", 0, 255, 1, rw));
  g_object_class_install_property (oc, PROP_LOOP, g_param_spec_boolean ("loop", "Loop",
          "Deliver our group's packets to children on this host too (IP_MULTICAST_LOOP)", FALSE,
          rw));
  g_object_class_install_property (oc, PROP_LOCAL_PORT, g_param_spec_int ("local-port",
          "Local port", "Port our group's data leaves from and the children's CI / NACK / ACK "
          "arrive at (0: any free port, read back after start)", 0, 65535, 0,
          rw | G_PARAM_EXPLICIT_NOTIFY));
  g_object_class_install_property (oc, PROP_NODE, g_param_spec_uint ("node", "Node",
          "Our id in what we send up, unique among the parent's children (0: random, read "
          "back after start)", 0, G_MAXUINT32, 0, rw));
  g_object_class_install_property (oc, PROP_STATS_INTERVAL, g_param_spec_uint
      ("stats-interval", "Stats interval", "Milliseconds between rmanprelay-stats element "
          "messages (0: none)", 0, 3600000, GST_AM_RMANP_DEFAULT_STATS_MS, rw));
  g_object_class_install_property (oc, PROP_STATS, g_param_spec_boxed ("stats", "Stats",
          "The relay role's counters now (fields as in the rmanprelay-stats message)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (oc, PROP_MEMORY, g_param_spec_uint64 ("memory", "Memory",
          "Bytes the relay role allocated when it started (cache, new_queue, repair queue, "
          "children): constant whatever arrives; 0 when stopped", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_MIN_RATE, TRUE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_PACKET_SIZE, TRUE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_INCREASE, TRUE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_CACHE, TRUE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_QUEUE, TRUE);
  gst_am_rmanp_install_param (oc, GST_AM_RMANP_PROP_AUTH_KEY, TRUE);

  gst_element_class_set_static_metadata (ec, "RMANP active relay", "Network",
      "An RMANP active relay (papers/004), no pads: receives the session on its parent's "
      "multicast group and forwards it on its own, throttling its output on congestion "
      "(new_queue), repairing its children from its cache and sending CI / NACK / ACK up",
      "gst-amcast <gst-amcast@localhost>");
  ec->change_state = gst_rmanp_relay_change_state;
}
