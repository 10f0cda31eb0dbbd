/* gstamrmanp.h - what rmanpsink, rmanprelay and rmanpsrc share: their UDP sockets, the receive
 * threads, the timer that polls the lib/cc role, the role's parameters as properties and its
 * counters as a GstStructure.
 *
 * Contract: this glue decides nothing. Every datagram goes to the role (amcc/rmanp.h); every
 * datagram sent comes out of the role's _poll, when its _next_due says; rates, repairs, ACKs and
 * timeouts are the role's. The glue only knows where to send: DOWN to the configured group,
 * UP to the parent, whose address is the source of the last valid data packet (or set).
 *
 *   down socket: bound to 0.0.0.0:local-port, sends data to address:port (IP_MULTICAST_IF,
 *                TTL, loop), receives the children's CI / NACK / ACK     (source, relay)
 *   up socket:   bound to the parent's group port and joined to it (IP_MULTICAST_ALL off: only
 *                that group), receives data, sends CI / NACK / ACK up      (relay, receiver)
 *
 * auth-key (off by default): every datagram either socket sends gets the trailer of gstamauth.h
 * (label "rmanp down" for data, "rmanp up" for CI / NACK / ACK), and every datagram that arrives
 * is checked and stripped of it before the role, or the parent learning, sees it; what fails
 * (untagged, forged, altered, another key, a replay) is dropped and counted (auth-rejected).
 *
 * Locking: io->lock guards the role and every field below; the receive threads and the timer
 * (on the system clock, so a GstTestClock installed as the system clock drives it) take it. */
#ifndef GST_AM_RMANP_H
#define GST_AM_RMANP_H
#include <gio/gio.h>
#include <gst/gst.h>
#include <amcc/rmanp.h>
#include "gstamauth.h"

G_BEGIN_DECLS

#define GST_AM_RMANP_DEFAULT_ADDRESS "239.1.4.1"
#define GST_AM_RMANP_DEFAULT_PORT 5200
#define GST_AM_RMANP_DEFAULT_STATS_MS 1000

/* The role behind the io: thin wrappers around amcc_rmanp_<role>_*; called with io->lock held. */
typedef struct {
  void (*on_packet) (gpointer role, gint64 now, gboolean from_parent, const guint8 * buf,
      gsize len);
  int (*poll) (gpointer role, gint64 now, guint8 * buf, gsize cap, amcc_rmanp_dir * dir);
  gint64 (*next_due) (gpointer role, gint64 now);
  void (*get_stats) (gpointer role, struct amcc_rmanp_stats * st);
} GstAmRmanpRoleOps;

typedef struct {
  GMutex lock;
  GCond cond;                   /* broadcast after every input and poll: streaming threads wait */
  GstElement *owner;            /* not ref'd: io is part of it */
  const gchar *stats_name;      /* element message / stats structure name */
  const GstAmRmanpRoleOps *ops;
  gpointer role;                /* NULL when stopped */
  GSocket *down, *up;
  GSocketAddress *group;        /* down destination */
  GSocketAddress *parent;       /* up destination: learned or set */
  gboolean parent_fixed;
  GCancellable *cancel;
  GThread *rx_down, *rx_up;
  GstClockID timer;
  gint64 timer_at;
  gint64 stats_ms, stats_at;
  GstStructure *stats_pending;  /* made under the lock, posted after it */
  guint64 up_unsent;            /* control the role made before any parent was known */
  guint64 send_errors;          /* datagrams the socket refused */
  guint8 *txbuf;
  guint64 bytes;                /* stream bytes taken (sink) or delivered (src) */
  gchar *auth_key;              /* auth-key as set (the element's object lock) */
  GstAmAuth *auth_tx[2], *auth_rx[2];   /* by amcc_rmanp_dir; NULL when off */
  guint64 auth_rejected;        /* datagrams that failed the check */
} GstAmRmanpIo;

void gst_am_rmanp_io_init (GstAmRmanpIo * io, GstElement * owner, const gchar * stats_name,
    const GstAmRmanpRoleOps * ops);
void gst_am_rmanp_io_clear (GstAmRmanpIo * io);
/* The open functions read auth-key (FALSE with *err set when it is not 60 hex digits).
 * The down socket (source, relay): FALSE with *err set. *local_port gets the port bound. */
gboolean gst_am_rmanp_io_open_down (GstAmRmanpIo * io, const gchar * address, gint port,
    const gchar * iface, gint ttl, gboolean loop, gint * local_port, GError ** err);
/* The up socket (relay, receiver): listens on address:port (joins it on iface when multicast).
 * parent: "host:port" to send control to, NULL = the source of the data. */
gboolean gst_am_rmanp_io_open_up (GstAmRmanpIo * io, const gchar * address, gint port,
    const gchar * iface, gboolean loop, const gchar * parent, GError ** err);
/* Takes the role, starts the receive threads and polls once. */
void gst_am_rmanp_io_start (GstAmRmanpIo * io, gpointer role, gint64 stats_ms);
/* Stops threads and timer, closes the sockets; returns the role for the caller to free. */
gpointer gst_am_rmanp_io_stop (GstAmRmanpIo * io);
/* With io->lock held: polls the role until it has nothing to send now, sends, re-arms the timer,
 * broadcasts io->cond. Call after giving the role input (a write, a read). */
void gst_am_rmanp_io_run_locked (GstAmRmanpIo * io);
/* Unlocks io->lock, then posts the stats made while it was held. */
void gst_am_rmanp_io_unlock (GstAmRmanpIo * io);
/* The role's counters and the io's as a structure (with io->lock held). */
GstStructure *gst_am_rmanp_io_stats_locked (GstAmRmanpIo * io);
/* Posts the structure as an element message (without the lock). */
void gst_am_rmanp_io_post_stats (GstAmRmanpIo * io, GstStructure * s);

/* The role parameters the elements expose (struct amcc_rmanp_params; each element installs
 * those its role uses). */
enum {
  GST_AM_RMANP_PROP_MIN_RATE = 100,     /* rm_bps */
  GST_AM_RMANP_PROP_PACKET_SIZE,        /* packet_bytes */
  GST_AM_RMANP_PROP_WINDOW,             /* window_packets */
  GST_AM_RMANP_PROP_INCREASE,           /* is (source) or in (relay) */
  GST_AM_RMANP_PROP_CACHE,              /* cache_packets */
  GST_AM_RMANP_PROP_QUEUE,              /* queue_packets */
  GST_AM_RMANP_PROP_AUTH_KEY,           /* the io's auth-key (every element) */
};
void gst_am_rmanp_install_param (GObjectClass * klass, guint id, gboolean relay);
gboolean gst_am_rmanp_param_set (struct amcc_rmanp_params * p, guint id, gboolean relay,
    const GValue * v);
gboolean gst_am_rmanp_param_get (const struct amcc_rmanp_params * p, guint id, gboolean relay,
    GValue * v);
/* auth-key (write-only: a secret); FALSE for any other id. With the element's object lock. */
gboolean gst_am_rmanp_io_set_key (GstAmRmanpIo * io, guint id, const GValue * v);

G_END_DECLS
#endif
