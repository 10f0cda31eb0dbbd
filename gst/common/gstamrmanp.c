/* gstamrmanp.c - sockets, receive threads, poll timer and stats of the RMANP elements (see the
 * header for what this glue must not do). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* struct ip_mreqn */
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamrmanp.h"
#include "gstamnet.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#define RX_MAX 65536            /* a UDP datagram never exceeds it */
#define POLL_BURST 64           /* packets sent per run before the timer takes over */
#define IO_KEY "gst-am-rmanp-io"

void
gst_am_rmanp_io_init (GstAmRmanpIo * io, GstElement * owner, const gchar * stats_name,
    const GstAmRmanpRoleOps * ops)
{
  memset (io, 0, sizeof *io);
  g_mutex_init (&io->lock);
  g_cond_init (&io->cond);
  io->owner = owner;
  io->stats_name = stats_name;
  io->ops = ops;
  io->stats_ms = GST_AM_RMANP_DEFAULT_STATS_MS;
  io->txbuf = g_malloc (RX_MAX);
  g_object_set_data (G_OBJECT (owner), IO_KEY, io);
}

void
gst_am_rmanp_io_clear (GstAmRmanpIo * io)
{
  g_mutex_clear (&io->lock);
  g_cond_clear (&io->cond);
  g_free (io->txbuf);
  g_free (io->auth_key);
}

static const gchar *const auth_label[2] = { "rmanp down", "rmanp up" };     /* by direction */

/* Keys the io from auth-key once per start (both open functions call it). */
static gboolean
auth_open (GstAmRmanpIo * io, GError ** err)
{
  GBytes *key = NULL;
  guint d;

  if (io->auth_tx[0])
    return TRUE;
  if (!gst_am_auth_parse_key ("auth-key", io->auth_key, &key, err))
    return FALSE;
  for (d = 0; key && d < 2; d++) {
    io->auth_tx[d] = gst_am_auth_new (key, auth_label[d]);
    io->auth_rx[d] = gst_am_auth_new (key, auth_label[d]);
  }
  if (key)
    g_bytes_unref (key);
  return TRUE;
}

static void
auth_close (GstAmRmanpIo * io)
{
  guint d;

  for (d = 0; d < 2; d++) {
    gst_am_auth_free (io->auth_tx[d]);
    gst_am_auth_free (io->auth_rx[d]);
    io->auth_tx[d] = io->auth_rx[d] = NULL;
  }
}

static GSocket *
udp_socket (const gchar * bind_host, gint port, GError ** err)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, err);
  GInetAddress *ia;
  GSocketAddress *sa;
  gboolean ok;
  int off = 0;

  if (!s)
    return NULL;
  ia = bind_host ? g_inet_address_new_from_string (bind_host)
      : g_inet_address_new_any (G_SOCKET_FAMILY_IPV4);
  if (!ia) {
    g_set_error (err, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "bad address %s", bind_host);
    g_object_unref (s);
    return NULL;
  }
  sa = g_inet_socket_address_new (ia, (guint16) port);
  ok = g_socket_bind (s, sa, TRUE, err);
  g_object_unref (sa);
  g_object_unref (ia);
  /* Linux delivers every group any socket on the host joined to a 0.0.0.0 socket of that port
   * unless IP_MULTICAST_ALL is off (as udpsrc does) */
  setsockopt (g_socket_get_fd (s), IPPROTO_IP, IP_MULTICAST_ALL, &off, sizeof off);
  if (!ok)
    g_clear_object (&s);
  return s;
}

static gboolean
set_multicast_iface (GSocket * s, const gchar * iface, GError ** err)
{
  struct ip_mreqn m = { 0 };

  m.imr_ifindex = (int) if_nametoindex (iface);
  if (!m.imr_ifindex || setsockopt (g_socket_get_fd (s), IPPROTO_IP, IP_MULTICAST_IF, &m,
          sizeof m) < 0) {
    g_set_error (err, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "multicast-iface %s: %s", iface,
        g_strerror (errno ? errno : ENODEV));
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_am_rmanp_io_open_down (GstAmRmanpIo * io, const gchar * address, gint port,
    const gchar * iface, gint ttl, gboolean loop, gint * local_port, GError ** err)
{
  GSocket *s;
  GSocketAddress *group;
  GSocketAddress *la;

  if (!auth_open (io, err) || !(s = udp_socket (NULL, *local_port, err)))
    return FALSE;
  group = g_inet_socket_address_new_from_string (address, (guint) port);
  if (!group) {
    g_set_error (err, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "bad address %s", address);
    g_object_unref (s);
    return FALSE;
  }
  g_socket_set_multicast_ttl (s, (guint) ttl);
  g_socket_set_multicast_loopback (s, loop);
  if (iface && *iface && !set_multicast_iface (s, iface, err)) {
    g_object_unref (group);
    g_object_unref (s);
    return FALSE;
  }
  la = g_socket_get_local_address (s, NULL);
  if (la) {
    *local_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (la));
    g_object_unref (la);
  }
  io->down = s;
  io->group = group;
  return TRUE;
}

/* "host:port" (the last colon separates). */
static GSocketAddress *
parse_host_port (const gchar * s)
{
  const gchar *colon = strrchr (s, ':');
  gchar *host;
  GSocketAddress *a;
  gint64 port;

  if (!colon)
    return NULL;
  port = g_ascii_strtoll (colon + 1, NULL, 10);
  if (port <= 0 || port > 65535)
    return NULL;
  host = g_strndup (s, (gsize) (colon - s));
  a = g_inet_socket_address_new_from_string (host, (guint) port);
  g_free (host);
  return a;
}

gboolean
gst_am_rmanp_io_open_up (GstAmRmanpIo * io, const gchar * address, gint port,
    const gchar * iface, gboolean loop, const gchar * parent, GError ** err)
{
  gboolean mc = gst_am_address_is_multicast (address);
  GSocket *s;

  if (!auth_open (io, err) || !(s = udp_socket (mc ? NULL : address, port, err)))
    return FALSE;
  g_socket_set_multicast_loopback (s, loop);
  if (mc) {
    GInetAddress *g = g_inet_address_new_from_string (address);
    gboolean ok = g_socket_join_multicast_group (s, g, FALSE,
        iface && *iface ? iface : NULL, err);
    g_object_unref (g);
    if (!ok || (iface && *iface && !set_multicast_iface (s, iface, err))) {
      g_object_unref (s);
      return FALSE;
    }
  }
  if (parent && *parent) {
    io->parent = parse_host_port (parent);
    if (!io->parent) {
      g_set_error (err, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
          "parent '%s' is not host:port", parent);
      g_object_unref (s);
      return FALSE;
    }
    io->parent_fixed = TRUE;
  }
  io->up = s;
  return TRUE;
}

static gboolean
same_address (GSocketAddress * a, GSocketAddress * b)
{
  GInetSocketAddress *x = G_INET_SOCKET_ADDRESS (a), *y = G_INET_SOCKET_ADDRESS (b);

  return g_inet_socket_address_get_port (x) == g_inet_socket_address_get_port (y)
      && g_inet_address_equal (g_inet_socket_address_get_address (x),
      g_inet_socket_address_get_address (y));
}

/* Unlocks io->lock and posts the stats made under it. */
static void
unlock_and_post (GstAmRmanpIo * io)
{
  GstStructure *s = io->stats_pending;

  io->stats_pending = NULL;
  g_mutex_unlock (&io->lock);
  if (s)
    gst_am_rmanp_io_post_stats (io, s);
}

static gpointer
rx_loop (GstAmRmanpIo * io, GSocket * sock, gboolean from_parent)
{
  guint8 *buf = g_malloc (RX_MAX);

  while (!g_cancellable_is_cancelled (io->cancel)) {
    GSocketAddress *from = NULL;
    gsize plain;
    gssize n = g_socket_receive_from (sock, &from, (gchar *) buf, RX_MAX, io->cancel, NULL);

    if (n < 0) {
      if (!g_cancellable_is_cancelled (io->cancel))
        g_usleep (1000);        /* e.g. ICMP port unreachable reported on the socket */
      continue;
    }
    g_mutex_lock (&io->lock);
    plain = (gsize) n;
    /* data comes down from the parent, control up from the children */
    if (io->role && io->auth_rx[0] && gst_am_auth_check (io->auth_rx[from_parent ?
                AMCC_RMANP_DOWN : AMCC_RMANP_UP], buf, (gsize) n, &plain) != GST_AM_AUTH_OK) {
      io->auth_rejected++;
    } else if (io->role) {
      struct amcc_rmanp_pkt k;
      /* the parent is whoever sends us valid data: a parent that restarts is followed */
      if (from_parent && !io->parent_fixed && from
          && amcc_rmanp_decode (&k, buf, plain) == AMCC_OK && k.type == AMCC_RMANP_DATA
          && (!io->parent || !same_address (io->parent, from))) {
        g_clear_object (&io->parent);
        io->parent = g_object_ref (from);
      }
      io->ops->on_packet (io->role, gst_am_now (), from_parent, buf, plain);
      gst_am_rmanp_io_run_locked (io);
    }
    unlock_and_post (io);
    g_clear_object (&from);
  }
  g_free (buf);
  return NULL;
}

static gpointer
rx_down (gpointer data)
{
  GstAmRmanpIo *io = data;
  return rx_loop (io, io->down, FALSE);
}

static gpointer
rx_up (gpointer data)
{
  GstAmRmanpIo *io = data;
  return rx_loop (io, io->up, TRUE);
}

static gboolean
timer_fired (GstClock * clock, GstClockTime t, GstClockID id, gpointer owner)
{
  GstAmRmanpIo *io = g_object_get_data (G_OBJECT (owner), IO_KEY);

  g_mutex_lock (&io->lock);
  if (io->timer == id) {
    gst_clock_id_unref (io->timer);
    io->timer = NULL;
  }
  gst_am_rmanp_io_run_locked (io);
  unlock_and_post (io);
  return TRUE;
}

static void
arm (GstAmRmanpIo * io, gint64 at)
{
  GstClock *clock;

  if (io->timer && io->timer_at <= at)
    return;
  if (io->timer) {
    gst_clock_id_unschedule (io->timer);
    gst_clock_id_unref (io->timer);
  }
  clock = gst_system_clock_obtain ();
  io->timer = gst_clock_new_single_shot_id (clock, (GstClockTime) MAX (at, 0));
  io->timer_at = at;
  gst_clock_id_wait_async (io->timer, timer_fired, gst_object_ref (io->owner),
      gst_object_unref);
  gst_object_unref (clock);
}

void
gst_am_rmanp_io_run_locked (GstAmRmanpIo * io)
{
  GError *err = NULL;
  gint64 now, due;
  int i, n = 0;
  amcc_rmanp_dir dir;

  if (!io->role)
    return;
  now = gst_am_now ();
  for (i = 0; i < POLL_BURST; i++) {
    guint8 *buf = io->txbuf;
    GSocket *s;
    GSocketAddress *to;

    if ((n = io->ops->poll (io->role, now, buf, RX_MAX - GST_AM_AUTH_TRAILER, &dir)) <= 0)
      break;
    s = dir == AMCC_RMANP_UP ? io->up : io->down;
    to = dir == AMCC_RMANP_UP ? io->parent : io->group;
    if (!s || !to) {
      io->up_unsent++;          /* the role repeats its ACK; a NACK or CI is asked again */
      continue;
    }
    if (io->auth_tx[dir])
      n = (int) gst_am_auth_protect (io->auth_tx[dir], buf, (gsize) n);
    if (g_socket_send_to (s, to, (const gchar *) buf, (gsize) n, NULL, &err) < 0) {
      if (!io->send_errors++)   /* the first one of a run: the rest are counted */
        GST_WARNING_OBJECT (io->owner, "send %s: %s", dir == AMCC_RMANP_UP ? "up" : "down",
            err->message);
      g_clear_error (&err);
    }
  }
  due = i == POLL_BURST ? now : io->ops->next_due (io->role, now);
  if (io->stats_ms > 0) {
    if (now >= io->stats_at) {
      if (io->stats_pending)
        gst_structure_free (io->stats_pending);
      io->stats_pending = gst_am_rmanp_io_stats_locked (io);
      io->stats_at = now + io->stats_ms * GST_MSECOND;
    }
    if (due == AMCC_TIME_NONE || io->stats_at < due)
      due = io->stats_at;
  }
  if (due != AMCC_TIME_NONE)
    arm (io, due);
  g_cond_broadcast (&io->cond);
}

void
gst_am_rmanp_io_unlock (GstAmRmanpIo * io)
{
  unlock_and_post (io);
}

void
gst_am_rmanp_io_start (GstAmRmanpIo * io, gpointer role, gint64 stats_ms)
{
  g_mutex_lock (&io->lock);
  io->role = role;
  io->stats_ms = stats_ms;
  io->stats_at = gst_am_now () + stats_ms * GST_MSECOND;
  io->up_unsent = io->send_errors = io->bytes = io->auth_rejected = 0;
  if (!io->cancel)
    io->cancel = g_cancellable_new ();
  if (io->down)
    io->rx_down = g_thread_new ("rmanp-rx-down", rx_down, io);
  if (io->up)
    io->rx_up = g_thread_new ("rmanp-rx-up", rx_up, io);
  gst_am_rmanp_io_run_locked (io);
  unlock_and_post (io);
}

gpointer
gst_am_rmanp_io_stop (GstAmRmanpIo * io)
{
  gpointer role;
  GstClockID timer;

  g_mutex_lock (&io->lock);
  role = io->role;
  io->role = NULL;
  timer = io->timer;
  io->timer = NULL;
  if (io->stats_pending)
    gst_structure_free (io->stats_pending);
  io->stats_pending = NULL;
  g_cond_broadcast (&io->cond);
  g_mutex_unlock (&io->lock);
  if (timer) {
    gst_clock_id_unschedule (timer);
    gst_clock_id_unref (timer);
  }
  if (io->cancel)
    g_cancellable_cancel (io->cancel);
  if (io->rx_down)
    g_thread_join (io->rx_down);
  if (io->rx_up)
    g_thread_join (io->rx_up);
  io->rx_down = io->rx_up = NULL;
  g_clear_object (&io->cancel);
  if (io->down)
    g_socket_close (io->down, NULL);
  if (io->up)
    g_socket_close (io->up, NULL);
  g_clear_object (&io->down);
  g_clear_object (&io->up);
  g_clear_object (&io->group);
  g_clear_object (&io->parent);
  io->parent_fixed = FALSE;
  auth_close (io);
  return role;
}

GstStructure *
gst_am_rmanp_io_stats_locked (GstAmRmanpIo * io)
{
  struct amcc_rmanp_stats st = { 0 };

  if (io->role)
    io->ops->get_stats (io->role, &st);
  return gst_structure_new (io->stats_name,
      "rate", G_TYPE_DOUBLE, st.rate_bps,
      "controlled", G_TYPE_BOOLEAN, st.controlled != 0,
      "queued", G_TYPE_UINT, st.queued,
      "queue-peak", G_TYPE_UINT, st.queue_peak,
      "cached", G_TYPE_UINT, st.cached,
      "repair-queued", G_TYPE_UINT, st.repair_queued,
      "children", G_TYPE_UINT, st.children,
      "excluded", G_TYPE_UINT, st.excluded,
      "acked", G_TYPE_UINT, st.acked,
      "sent", G_TYPE_UINT64, st.sent,
      "retransmitted", G_TYPE_UINT64, st.retransmitted,
      "forwarded", G_TYPE_UINT64, st.forwarded,
      "ci-sent", G_TYPE_UINT64, st.ci_sent,
      "ci-received", G_TYPE_UINT64, st.ci_received,
      "ci-filtered", G_TYPE_UINT64, st.ci_filtered,
      "reactions", G_TYPE_UINT64, st.reactions,
      "gaps", G_TYPE_UINT64, st.gaps,
      "marked", G_TYPE_UINT64, st.marked,
      "overflows", G_TYPE_UINT64, st.overflows,
      "cache-hits", G_TYPE_UINT64, st.cache_hits,
      "cache-misses", G_TYPE_UINT64, st.cache_misses,
      "nacks-sent", G_TYPE_UINT64, st.nacks_sent,
      "nacks-received", G_TYPE_UINT64, st.nacks_received,
      "acks-sent", G_TYPE_UINT64, st.acks_sent,
      "ack-timeouts", G_TYPE_UINT64, st.ack_timeouts,
      "duplicates", G_TYPE_UINT64, st.duplicates,
      "malformed", G_TYPE_UINT64, st.malformed,
      "ignored", G_TYPE_UINT64, st.ignored,
      "bytes", G_TYPE_UINT64, io->bytes,
      "up-unsent", G_TYPE_UINT64, io->up_unsent,
      "send-errors", G_TYPE_UINT64, io->send_errors,
      "auth", G_TYPE_BOOLEAN, io->auth_tx[0] != NULL,
      "auth-rejected", G_TYPE_UINT64, io->auth_rejected, NULL);
}

void
gst_am_rmanp_io_post_stats (GstAmRmanpIo * io, GstStructure * s)
{
  gst_element_post_message (io->owner, gst_message_new_element (GST_OBJECT (io->owner), s));
}

/* ---- the role parameters as properties ---- */

void
gst_am_rmanp_install_param (GObjectClass * klass, guint id, gboolean relay)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_READY;
  struct amcc_rmanp_params d;

  amcc_rmanp_params_init (&d);
  switch (id) {
    case GST_AM_RMANP_PROP_MIN_RATE:
      g_object_class_install_property (klass, id, g_param_spec_uint ("min-rate", "Rm",
              "Rm, the session's minimum rate in bit/s: the start rate, the floor of every "
              "rate, the unit of the increase (the same on every node)", 1000, 1000000000,
              (guint) d.rm_bps, rw));
      break;
    case GST_AM_RMANP_PROP_PACKET_SIZE:
      g_object_class_install_property (klass, id, g_param_spec_uint ("packet-size",
              "Packet size", "Data packet on the wire (16-byte header + payload), bytes; a "
              "node rejects data packets larger than its own (the same on every node)",
              AMCC_RMANP_DATA_HDR + 1, 65507, d.packet_bytes, rw));
      break;
    case GST_AM_RMANP_PROP_WINDOW:
      g_object_class_install_property (klass, id, g_param_spec_uint ("window-packets",
              "Window", "Source: unACKed packets buffered; receiver: its reorder window",
              1, 1u << 20, d.window_packets, rw));
      break;
    case GST_AM_RMANP_PROP_INCREASE:
      g_object_class_install_property (klass, id, g_param_spec_double ("increase",
              relay ? "In" : "Is", relay ? "In: the relay's rate increase per packet ACKed, "
              "a fraction of Rm" : "Is: the source's rate increase per packet ACKed, a "
              "fraction of Rm", 0.0, 1000.0, relay ? d.in : d.is, rw));
      break;
    case GST_AM_RMANP_PROP_CACHE:
      g_object_class_install_property (klass, id, g_param_spec_uint ("cache-packets",
              "Cache", "Packets the relay keeps for local repair", 1, 1u << 20,
              d.cache_packets, rw));
      break;
    case GST_AM_RMANP_PROP_QUEUE:
      g_object_class_install_property (klass, id, g_param_spec_uint ("queue-packets",
              "new_queue", "Packets the relay holds back while it throttles its output",
              1, 1u << 20, d.queue_packets, rw));
      break;
    case GST_AM_RMANP_PROP_AUTH_KEY:
      g_object_class_install_property (klass, id, g_param_spec_string ("auth-key",
              "Authentication key", "Group key authenticating every RMANP packet (data, CI, "
              "NACK, ACK): 60 hex digits, the same 30 bytes as the RTP elements' srtp-key; "
              "every node of the tree sets the same. Each datagram then carries an 18-byte "
              "trailer (sender id, counter, 10-byte HMAC-SHA-256 tag); packets that fail "
              "(untagged, forged, altered, another key, replayed) are dropped before lib/cc "
              "sees them and counted (auth-rejected in the stats). Not encrypted; a key shared "
              "by the group keeps out who does not hold it, not a member (docs/security.md). "
              "Empty: off. Write-only; read at start, where a malformed key is an error", NULL,
              G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
      break;
  }
}

gboolean
gst_am_rmanp_param_set (struct amcc_rmanp_params *p, guint id, gboolean relay,
    const GValue * v)
{
  switch (id) {
    case GST_AM_RMANP_PROP_MIN_RATE: p->rm_bps = g_value_get_uint (v); break;
    case GST_AM_RMANP_PROP_PACKET_SIZE: p->packet_bytes = g_value_get_uint (v); break;
    case GST_AM_RMANP_PROP_WINDOW: p->window_packets = g_value_get_uint (v); break;
    case GST_AM_RMANP_PROP_INCREASE:
      if (relay)
        p->in = g_value_get_double (v);
      else
        p->is = g_value_get_double (v);
      break;
    case GST_AM_RMANP_PROP_CACHE: p->cache_packets = g_value_get_uint (v); break;
    case GST_AM_RMANP_PROP_QUEUE: p->queue_packets = g_value_get_uint (v); break;
    default: return FALSE;
  }
  return TRUE;
}

gboolean
gst_am_rmanp_param_get (const struct amcc_rmanp_params *p, guint id, gboolean relay,
    GValue * v)
{
  switch (id) {
    case GST_AM_RMANP_PROP_MIN_RATE: g_value_set_uint (v, (guint) p->rm_bps); break;
    case GST_AM_RMANP_PROP_PACKET_SIZE: g_value_set_uint (v, p->packet_bytes); break;
    case GST_AM_RMANP_PROP_WINDOW: g_value_set_uint (v, p->window_packets); break;
    case GST_AM_RMANP_PROP_INCREASE: g_value_set_double (v, relay ? p->in : p->is); break;
    case GST_AM_RMANP_PROP_CACHE: g_value_set_uint (v, p->cache_packets); break;
    case GST_AM_RMANP_PROP_QUEUE: g_value_set_uint (v, p->queue_packets); break;
    default: return FALSE;
  }
  return TRUE;
}

gboolean
gst_am_rmanp_io_set_key (GstAmRmanpIo * io, guint id, const GValue * v)
{
  if (id != GST_AM_RMANP_PROP_AUTH_KEY)
    return FALSE;
  g_free (io->auth_key);
  io->auth_key = g_value_dup_string (v);
  return TRUE;
}
