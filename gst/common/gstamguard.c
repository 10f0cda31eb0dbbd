/* gstamguard.c - source-address binding of RTCP SSRCs (see gstamguard.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamguard.h"

#include <gst/net/gstnetaddressmeta.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <gio/gio.h>
#include <string.h>

#define MAX_SPOKEN 64           /* SSRCs one compound packet may speak for; more: dropped */

typedef struct {
  guint8 addr[16];
  gsize len;
  gint64 last;
} Binding;

struct _GstAmSourceGuard {
  GHashTable *bound;            /* ssrc -> Binding */
  gint64 forget_ns;
  guint max_per_host;           /* 0 = no limit */
};

GstAmSourceGuard *
gst_am_source_guard_new (gint64 forget_ns, guint max_per_host)
{
  GstAmSourceGuard *g = g_new0 (GstAmSourceGuard, 1);

  g->max_per_host = max_per_host;
  g->bound = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g->forget_ns = forget_ns;
  return g;
}

void
gst_am_source_guard_free (GstAmSourceGuard * g)
{
  if (!g)
    return;
  g_hash_table_destroy (g->bound);
  g_free (g);
}

guint
gst_am_source_guard_size (GstAmSourceGuard * g)
{
  return g_hash_table_size (g->bound);
}

/* The sender's IP address (no port: a host may send from more than one socket). */
static gboolean
source_address (GstBuffer * buf, guint8 addr[16], gsize * len)
{
  GstNetAddressMeta *meta = gst_buffer_get_net_address_meta (buf);
  GInetAddress *ia;

  if (!meta || !G_IS_INET_SOCKET_ADDRESS (meta->addr))
    return FALSE;
  ia = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (meta->addr));
  *len = MIN (g_inet_address_get_native_size (ia), 16);
  memcpy (addr, g_inet_address_to_bytes (ia), *len);
  return TRUE;
}

/* Every SSRC the compound packet speaks for; FALSE if it does not parse (rtpbin rejects it). */
/* one more SSRC in a[*k]; FALSE when the packet speaks for more than MAX_SPOKEN */
#define PUSH(a, k, v) G_STMT_START { if (*(k) >= MAX_SPOKEN) goto too_many; (a)[(*(k))++] = (v); } G_STMT_END

static gboolean
spoken_for (GstBuffer * buf, guint32 * ssrc, guint * n, guint32 * bye, guint * nbye)
{
  guint32 sr_ssrc;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  gboolean more;
  guint i;

  *n = *nbye = 0;
  if (!gst_rtcp_buffer_validate_reduced (buf) || !gst_rtcp_buffer_map (buf, GST_MAP_READ, &rtcp))
    return FALSE;
  for (more = gst_rtcp_buffer_get_first_packet (&rtcp, &p); more;
      more = gst_rtcp_packet_move_to_next (&p)) {
    switch (gst_rtcp_packet_get_type (&p)) {
      case GST_RTCP_TYPE_SR:
        gst_rtcp_packet_sr_get_sender_info (&p, &sr_ssrc, NULL, NULL, NULL, NULL);
        PUSH (ssrc, n, sr_ssrc);
        break;
      case GST_RTCP_TYPE_RR:
        PUSH (ssrc, n, gst_rtcp_packet_rr_get_ssrc (&p));
        break;
      case GST_RTCP_TYPE_APP:
        PUSH (ssrc, n, gst_rtcp_packet_app_get_ssrc (&p));
        break;
      case GST_RTCP_TYPE_RTPFB:
      case GST_RTCP_TYPE_PSFB:
        PUSH (ssrc, n, gst_rtcp_packet_fb_get_sender_ssrc (&p));
        break;
      case GST_RTCP_TYPE_SDES:
        if (gst_rtcp_packet_sdes_first_item (&p)) {
          do {
            PUSH (ssrc, n, gst_rtcp_packet_sdes_get_ssrc (&p));
          } while (gst_rtcp_packet_sdes_next_item (&p));
        }
        break;
      case GST_RTCP_TYPE_BYE:
        for (i = 0; i < gst_rtcp_packet_bye_get_ssrc_count (&p); i++)
          PUSH (bye, nbye, gst_rtcp_packet_bye_get_nth_ssrc (&p, i));
        break;
      default:
        break;
    }
  }
  gst_rtcp_buffer_unmap (&rtcp);
  return TRUE;

too_many:
  gst_rtcp_buffer_unmap (&rtcp);
  *n = G_MAXUINT;
  return TRUE;
}

static void
forget_silent (GstAmSourceGuard * g, gint64 now)
{
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, g->bound);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (now - ((Binding *) v)->last > g->forget_ns)
      g_hash_table_iter_remove (&it);
}

/* Live bindings held by an address (a linear scan: it runs only for a new SSRC). */
static guint
bound_to (GstAmSourceGuard * g, const guint8 * addr, gsize len, gint64 now)
{
  GHashTableIter it;
  gpointer v;
  guint n = 0;

  g_hash_table_iter_init (&it, g->bound);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    const Binding *b = v;
    n += now - b->last <= g->forget_ns && b->len == len && !memcmp (b->addr, addr, len);
  }
  return n;
}

GstAmGuardVerdict
gst_am_source_guard_check (GstAmSourceGuard * g, GstBuffer * rtcp, gint64 now)
{
  guint32 ssrc[2 * MAX_SPOKEN], *bye = ssrc + MAX_SPOKEN;
  guint n, nbye, i, fresh = 0;
  guint8 addr[16];
  gsize len;
  Binding *b;

  if (!source_address (rtcp, addr, &len) || !spoken_for (rtcp, ssrc, &n, bye, &nbye))
    return GST_AM_GUARD_PASS;
  if (n == G_MAXUINT)
    return GST_AM_GUARD_SPOOFED;      /* no honest member speaks for 64 SSRCs at once */
  /* all or nothing: one foreign SSRC (a BYE after our own RR, say) condemns the packet */
  for (i = 0; i < n + nbye; i++) {
    b = g_hash_table_lookup (g->bound, GUINT_TO_POINTER (i < n ? ssrc[i] : bye[i - n]));
    if (b && now - b->last <= g->forget_ns && (b->len != len || memcmp (b->addr, addr, len)))
      return GST_AM_GUARD_SPOOFED;
    fresh += !b;
  }
  if (fresh && g_hash_table_size (g->bound) + fresh > GST_AM_GUARD_MAX_SSRCS) {
    forget_silent (g, now);
    if (g_hash_table_size (g->bound) + fresh > GST_AM_GUARD_MAX_SSRCS)
      return GST_AM_GUARD_FULL;
  }
  if (fresh && g->max_per_host && bound_to (g, addr, len, now) + fresh > g->max_per_host)
    return GST_AM_GUARD_CROWDED;
  for (i = 0; i < n; i++) {
    if (!(b = g_hash_table_lookup (g->bound, GUINT_TO_POINTER (ssrc[i])))) {
      b = g_new0 (Binding, 1);
      g_hash_table_insert (g->bound, GUINT_TO_POINTER (ssrc[i]), b);
    }
    memcpy (b->addr, addr, len);
    b->len = len;
    b->last = now;
  }
  for (i = 0; i < nbye; i++)
    g_hash_table_remove (g->bound, GUINT_TO_POINTER (bye[i]));
  return GST_AM_GUARD_PASS;
}
