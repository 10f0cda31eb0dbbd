/* amrmanptest.h - what the RMANP element tests share: a peer (a UDP socket on 127.0.0.1 that plays
 * the parent or a child), RMANP packets built with lib/cc's codec, and a receive loop that cranks
 * the GstTestClock (the elements' timers run on it) while it waits. */
#ifndef AMRMANPTEST_H
#define AMRMANPTEST_H
#include "amgsttest.h"
#include <amcc/rmanp.h>

/* A UDP socket on 127.0.0.1:port (0: any free port). */
static inline GSocket *
amr_socket (gint port)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, 0, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *sa = g_inet_socket_address_new (lo, (guint16) port);

  fail_unless (g_socket_bind (s, sa, FALSE, NULL));
  g_object_unref (sa);
  g_object_unref (lo);
  return s;
}

static inline gint
amr_port (GSocket * s)
{
  GSocketAddress *a = g_socket_get_local_address (s, NULL);
  gint p = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (a));

  g_object_unref (a);
  return p;
}

static inline void
amr_send (GSocket * s, gint port, const guint8 * b, gsize n)
{
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *sa = g_inet_socket_address_new (lo, (guint16) port);

  fail_unless (g_socket_send_to (s, sa, (const gchar *) b, n, NULL, NULL) == (gssize) n);
  g_object_unref (sa);
  g_object_unref (lo);
}

static inline void
amr_send_ctl (GSocket * s, gint port, guint8 type, guint32 node, guint32 seq, guint32 value)
{
  guint8 b[AMCC_RMANP_CTL_LEN];
  struct amcc_rmanp_pkt k = { .type = type, .node = node, .seq = seq, .value = value };

  fail_unless (amcc_rmanp_encode (&k, b, sizeof b) == AMCC_RMANP_CTL_LEN);
  amr_send (s, port, b, sizeof b);
}

/* A data packet whose payload is `len` bytes of (seq * 7 + i) & 0xff. */
static inline void
amr_send_data (GSocket * s, gint port, guint32 seq, guint8 flags, guint16 len)
{
  guint8 pay[2048], b[2048 + AMCC_RMANP_DATA_HDR];
  struct amcc_rmanp_pkt k = { .type = AMCC_RMANP_DATA, .seq = seq, .value = 100000,
    .flags = flags, .payload = pay, .len = len };
  guint i;

  for (i = 0; i < len; i++)
    pay[i] = (guint8) (seq * 7 + i);
  fail_unless (amcc_rmanp_encode (&k, b, sizeof b) == AMCC_RMANP_DATA_HDR + len);
  amr_send (s, port, b, AMCC_RMANP_DATA_HDR + len);
}

/* One datagram within timeout_ms of real time, decoded into *k (payload into raw): its length,
 * or 0 when none came. */
static inline gssize
amr_recv (GSocket * s, guint timeout_ms, guint8 * raw, gsize cap, struct amcc_rmanp_pkt *k)
{
  gssize n;

  g_socket_set_timeout (s, 0);
  if (!g_socket_condition_timed_wait (s, G_IO_IN, (gint64) timeout_ms * 1000, NULL, NULL))
    return 0;
  n = g_socket_receive (s, (gchar *) raw, cap, NULL, NULL);
  fail_unless (n > 0);
  fail_unless (amcc_rmanp_decode (k, raw, (gsize) n) == AMCC_OK, "undecodable datagram");
  return n;
}

/* Waits for a packet of `type` (0: any) on s, cranking the clock to the elements' next timer
 * whenever nothing has arrived for 30 ms; packets of other types are skipped (and counted in
 * *skipped when given). FALSE after max_cranks cranks or 5 s without any timer. */
static inline gboolean
amr_wait (GSocket * s, GstTestClock * clock, guint8 type, guint max_cranks, guint8 * raw,
    gsize cap, struct amcc_rmanp_pkt *k, guint * skipped)
{
  guint cranks = 0;

  for (;;) {
    while (amr_recv (s, 30, raw, cap, k) > 0) {
      if (!type || k->type == type)
        return TRUE;
      if (skipped)
        (*skipped)++;
    }
    if (cranks++ == max_cranks
        || !gst_test_clock_timed_wait_for_multiple_pending_ids (clock, 1, 5000, NULL))
      return FALSE;
    gst_test_clock_crank (clock);
  }
}

/* A numeric field of an element's `stats` structure. */
static inline guint64
amr_stat (GstElement * e, const gchar * field)
{
  GstStructure *st = NULL;
  guint64 v = 0;
  guint u = 0;

  g_object_get (e, "stats", &st, NULL);
  fail_unless (st != NULL);
  if (!gst_structure_get_uint64 (st, field, &v) && gst_structure_get_uint (st, field, &u))
    v = u;
  gst_structure_free (st);
  return v;
}

/* Polls amr_stat until it reaches want (real time, up to 5 s): the receive thread is
 * asynchronous. */
static inline guint64
amr_stat_reaches (GstElement * e, const gchar * field, guint64 want)
{
  guint64 v = 0;
  gint i;

  for (i = 0; i < 500 && (v = amr_stat (e, field)) < want; i++)
    g_usleep (10000);
  return v;
}

#endif
