/* gstamguard.c - source-address binding of RTCP SSRCs (see gstamguard.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamguard.h"

#include <gst/net/gstnetaddressmeta.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <gio/gio.h>
#include <amcc/proof.h>
#include <amcc/rtt.h>
#include <string.h>

#define MAX_SPOKEN 64           /* SSRCs one compound packet may speak for; more: dropped */

typedef struct {
  guint8 addr[16];
  gsize len;
  gint64 last;
  gboolean proven;              /* a report block of it proved reception of the stream */
} Binding;

struct _GstAmSourceGuard {
  GHashTable *bound;            /* ssrc -> Binding */
  gint64 forget_ns;
  guint max_per_host;           /* 0 = no limit */
  guint max_unproven;           /* 0 = no limit */
  gint64 proof_slack;
  gboolean have_stream, remote;
  guint32 stream;               /* the SSRC whose reception members prove */
  amcc_sr_memory srs;           /* its recent SRs */
};

/* What one compound packet says: the SSRCs it speaks for (ssrc[0, n)), those it says BYE for,
 * the reporters among them whose report block proves reception, the stream's SR in it. */
typedef struct {
  guint32 ssrc[MAX_SPOKEN], bye[MAX_SPOKEN], proven[MAX_SPOKEN];
  guint n, nbye, nproven;
  gboolean has_sr;
  guint32 sr_ntp;
} Spoken;

GstAmSourceGuard *
gst_am_source_guard_new (gint64 forget_ns, guint max_per_host, guint max_unproven,
    gint64 proof_slack)
{
  GstAmSourceGuard *g = g_new0 (GstAmSourceGuard, 1);

  g->max_per_host = max_per_host;
  g->max_unproven = max_unproven;
  g->proof_slack = proof_slack;
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

void
gst_am_source_guard_set_stream (GstAmSourceGuard * g, guint32 ssrc, gboolean remote)
{
  if (g->have_stream && g->stream != ssrc)
    memset (&g->srs, 0, sizeof (g->srs));     /* another stream: its SRs prove nothing */
  g->have_stream = TRUE;
  g->remote = remote;
  g->stream = ssrc;
}

void
gst_am_source_guard_note_sr (GstAmSourceGuard * g, gint64 at, guint32 ntp_mid32)
{
  amcc_sr_memory_note (&g->srs, at, ntp_mid32);
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

/* one more SSRC in a[*k]; FALSE when the packet speaks for more than MAX_SPOKEN */
#define PUSH(a, k, v) G_STMT_START { if (*(k) >= MAX_SPOKEN) goto too_many; (a)[(*(k))++] = (v); } G_STMT_END

/* Does a report block of this SR/RR (hdr: bytes before its blocks) about the stream prove
 * reception (amcc_sr_memory_proves against the stream's remembered SRs)? */
static gboolean
proves (GstAmSourceGuard * g, GstRTCPPacket * p, gsize hdr, gint64 now)
{
  guint i, n = gst_rtcp_packet_get_rb_count (p);
  guint32 about, lsr, dlsr, ehs, jitter;
  guint8 fl;
  gint32 pl;

  /* the block count must agree with the packet length */
  if (!g->have_stream || hdr + (gsize) n * 24 > (gst_rtcp_packet_get_length (p) + 1) * 4u)
    return FALSE;
  for (i = 0; i < n; i++) {
    gst_rtcp_packet_get_rb (p, i, &about, &fl, &pl, &ehs, &jitter, &lsr, &dlsr);
    if (about == g->stream && amcc_sr_memory_proves (&g->srs, now, lsr, dlsr, g->proof_slack,
            NULL))
      return TRUE;
  }
  return FALSE;
}

/* What the compound packet says (Spoken); FALSE if it does not parse (rtpbin rejects it);
 * s->n = G_MAXUINT when it speaks for more than MAX_SPOKEN SSRCs. */
static gboolean
spoken_for (GstAmSourceGuard * g, GstBuffer * buf, gint64 now, Spoken * s)
{
  guint32 sr_ssrc;
  guint64 ntp;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  gboolean more;
  guint i;

  s->n = s->nbye = s->nproven = 0;
  s->has_sr = FALSE;
  if (!gst_rtcp_buffer_validate_reduced (buf) || !gst_rtcp_buffer_map (buf, GST_MAP_READ, &rtcp))
    return FALSE;
  for (more = gst_rtcp_buffer_get_first_packet (&rtcp, &p); more;
      more = gst_rtcp_packet_move_to_next (&p)) {
    switch (gst_rtcp_packet_get_type (&p)) {
      case GST_RTCP_TYPE_SR:
        gst_rtcp_packet_sr_get_sender_info (&p, &sr_ssrc, &ntp, NULL, NULL, NULL);
        PUSH (s->ssrc, &s->n, sr_ssrc);
        if (g->have_stream && g->remote && sr_ssrc == g->stream) {
          s->has_sr = TRUE;
          s->sr_ntp = amcc_ntp_mid32 (ntp);
        }
        if (proves (g, &p, 28, now))
          PUSH (s->proven, &s->nproven, sr_ssrc);
        break;
      case GST_RTCP_TYPE_RR:
        PUSH (s->ssrc, &s->n, gst_rtcp_packet_rr_get_ssrc (&p));
        if (proves (g, &p, 8, now))
          PUSH (s->proven, &s->nproven, gst_rtcp_packet_rr_get_ssrc (&p));
        break;
      case GST_RTCP_TYPE_APP:
        PUSH (s->ssrc, &s->n, gst_rtcp_packet_app_get_ssrc (&p));
        break;
      case GST_RTCP_TYPE_RTPFB:
      case GST_RTCP_TYPE_PSFB:
        PUSH (s->ssrc, &s->n, gst_rtcp_packet_fb_get_sender_ssrc (&p));
        break;
      case GST_RTCP_TYPE_SDES:
        if (gst_rtcp_packet_sdes_first_item (&p)) {
          do {
            PUSH (s->ssrc, &s->n, gst_rtcp_packet_sdes_get_ssrc (&p));
          } while (gst_rtcp_packet_sdes_next_item (&p));
        }
        break;
      case GST_RTCP_TYPE_BYE:
        for (i = 0; i < gst_rtcp_packet_bye_get_ssrc_count (&p); i++)
          PUSH (s->bye, &s->nbye, gst_rtcp_packet_bye_get_nth_ssrc (&p, i));
        break;
      default:
        break;
    }
  }
  gst_rtcp_buffer_unmap (&rtcp);
  return TRUE;

too_many:
  gst_rtcp_buffer_unmap (&rtcp);
  s->n = G_MAXUINT;
  return TRUE;
}

static gboolean
in (const guint32 * a, guint n, guint32 v)
{
  guint i;

  for (i = 0; i < n; i++)
    if (a[i] == v)
      return TRUE;
  return FALSE;
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

/* Live bindings that have not proven reception (a linear scan, as bound_to). */
guint
gst_am_source_guard_unproven (GstAmSourceGuard * g, gint64 now)
{
  GHashTableIter it;
  gpointer k, v;
  guint n = 0;

  g_hash_table_iter_init (&it, g->bound);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    const Binding *b = v;
    n += now - b->last <= g->forget_ns && !b->proven
        && !(g->have_stream && GPOINTER_TO_UINT (k) == g->stream);
  }
  return n;
}

/* Distinct SSRCs of the packet that would join unproven: new (or silent past the forget time)
 * and neither the stream nor proven by the packet's own report blocks. */
static guint
fresh_unproven (GstAmSourceGuard * g, const Spoken * s, gint64 now)
{
  guint i, n = 0;
  Binding *b;

  for (i = 0; i < s->n; i++) {
    b = g_hash_table_lookup (g->bound, GUINT_TO_POINTER (s->ssrc[i]));
    if ((!b || now - b->last > g->forget_ns) && !in (s->ssrc, i, s->ssrc[i])
        && !in (s->proven, s->nproven, s->ssrc[i])
        && !(g->have_stream && s->ssrc[i] == g->stream))
      n++;
  }
  return n;
}

GstAmGuardVerdict
gst_am_source_guard_check (GstAmSourceGuard * g, GstBuffer * rtcp, gint64 now)
{
  Spoken s;
  guint i, fresh = 0, unproven;
  guint8 addr[16];
  gsize len;
  Binding *b;

  if (!source_address (rtcp, addr, &len) || !spoken_for (g, rtcp, now, &s))
    return GST_AM_GUARD_PASS;
  if (s.n == G_MAXUINT)
    return GST_AM_GUARD_SPOOFED;      /* no honest member speaks for 64 SSRCs at once */
  /* all or nothing: one foreign SSRC (a BYE after our own RR, say) condemns the packet */
  for (i = 0; i < s.n + s.nbye; i++) {
    b = g_hash_table_lookup (g->bound, GUINT_TO_POINTER (i < s.n ? s.ssrc[i] : s.bye[i - s.n]));
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
  /* many addresses (or spoofed ones) together: the unproven share one budget */
  if (g->max_unproven && (unproven = fresh_unproven (g, &s, now))
      && !amcc_unproven_admit (gst_am_source_guard_unproven (g, now), unproven, g->max_unproven))
    return GST_AM_GUARD_UNPROVEN;
  for (i = 0; i < s.n; i++) {
    if (!(b = g_hash_table_lookup (g->bound, GUINT_TO_POINTER (s.ssrc[i])))) {
      b = g_new0 (Binding, 1);
      g_hash_table_insert (g->bound, GUINT_TO_POINTER (s.ssrc[i]), b);
    } else if (now - b->last > g->forget_ns) {
      b->proven = FALSE;              /* forgotten: it proves afresh */
    }
    memcpy (b->addr, addr, len);
    b->len = len;
    b->last = now;
    b->proven = b->proven || in (s.proven, s.nproven, s.ssrc[i]);
  }
  for (i = 0; i < s.nbye; i++)
    g_hash_table_remove (g->bound, GUINT_TO_POINTER (s.bye[i]));
  if (s.has_sr)                       /* the stream's SR as it reached us (a receiver) */
    amcc_sr_memory_note (&g->srs, now, s.sr_ntp);
  return GST_AM_GUARD_PASS;
}
