/* gstamlayers.c - VP8 layer ids, the AVMRC stamp extension and the layer merge (gstamlayers.h).
 * The merge keeps one queue ordered by (timestamp, layer, sequence number); packets mostly
 * arrive in that order, so an insertion walks back from the tail a step or two. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamlayers.h"

#include <string.h>
#include <gio/gio.h>
#include <amcc/controller.h>

gchar *
gst_am_layer_address (const gchar * base, guint i)
{
  GInetAddress *a = base ? g_inet_address_new_from_string (base) : NULL;
  guint8 b[4];

  if (!a || g_inet_address_get_family (a) != G_SOCKET_FAMILY_IPV4) {
    g_clear_object (&a);
    return NULL;
  }
  memcpy (b, g_inet_address_to_bytes (a), 4);
  g_object_unref (a);
  if (b[3] + i > 255)
    return NULL;
  return g_strdup_printf ("%u.%u.%u.%u", b[0], b[1], b[2], b[3] + i);
}

GType
gst_am_layered_protocol_get_type (void)
{
  static gsize id = 0;

  if (g_once_init_enter (&id)) {
    gsize i, k = 0, n = amcc_protocol_count ();
    GEnumValue *v = g_new0 (GEnumValue, n + 1);      /* lives as long as the type */
    for (i = 0; i < n; i++) {
      if (!amcc_protocol_at (i)->max_layers)
        continue;
      v[k].value = (gint) i;
      v[k].value_name = amcc_protocol_at (i)->description;
      v[k].value_nick = amcc_protocol_at (i)->name;
      k++;
    }
    g_once_init_leave (&id, g_enum_register_static ("GstAmLayeredProtocol", v));
  }
  return (GType) id;
}

gint
gst_am_layered_protocol_default (void)
{
  gsize i;

  for (i = 0; i < amcc_protocol_count (); i++)
    if (amcc_protocol_at (i) == amcc_protocol_find ("avmrc"))
      return (gint) i;
  return 0;
}

GstAmVp8Result
gst_am_vp8_tid (const guint8 * p, gsize len, guint * tid)
{
  gsize off = 2;
  guint8 x;

  *tid = 0;
  if (len < 1)
    return GST_AM_VP8_TRUNCATED;
  if (!(p[0] & 0x80))           /* X = 0: no extension, no TID (a single layer) */
    return len >= 2 ? GST_AM_VP8_OK : GST_AM_VP8_TRUNCATED;
  if (len < 2)
    return GST_AM_VP8_TRUNCATED;
  x = p[1];                     /* I L T K */
  if (x & 0x80) {               /* picture id, 7 or 15 bits */
    if (off >= len)
      return GST_AM_VP8_TRUNCATED;
    off += (p[off] & 0x80) ? 2 : 1;
  }
  if (x & 0x40)                 /* TL0PICIDX */
    off++;
  if (x & 0x30) {               /* TID (2 bits) Y KEYIDX */
    if (off >= len)
      return GST_AM_VP8_TRUNCATED;
    if (x & 0x20)
      *tid = p[off] >> 6;
    off++;
  }
  /* the descriptor is followed by at least one byte of VP8 payload */
  return off < len ? GST_AM_VP8_OK : GST_AM_VP8_TRUNCATED;
}

gboolean
gst_am_vp8_frame_start (const guint8 * p, gsize len)
{
  guint tid;

  return gst_am_vp8_tid (p, len, &tid) == GST_AM_VP8_OK && (p[0] & 0x10) && !(p[0] & 0x07);
}

gboolean
gst_am_avmrc_stamp_write (GstRTPBuffer * rtp, const amcc_avmrc_stamp * st)
{
  guint8 b[AMCC_AVMRC_STAMP_LEN];

  if (amcc_avmrc_stamp_encode (st, b, sizeof b) != AMCC_AVMRC_STAMP_LEN)
    return FALSE;
  return gst_rtp_buffer_add_extension_onebyte_header (rtp, GST_AM_EXT_ID_AVMRC, b, sizeof b);
}

gint
gst_am_avmrc_stamp_read (GstRTPBuffer * rtp, amcc_avmrc_stamp * st)
{
  gpointer data;
  guint size;
  int ret;

  if (!gst_rtp_buffer_get_extension_onebyte_header (rtp, GST_AM_EXT_ID_AVMRC, 0, &data, &size))
    return 0;
  ret = amcc_avmrc_stamp_decode (st, data, size);
  return ret == AMCC_OK ? 1 : ret;
}

/* ---------------------------------------------------------------- merge */

typedef struct {
  GstBuffer *buf;
  guint layer;
  gint64 ts;                    /* unwrapped RTP timestamp */
  guint32 seq;                  /* the layer's extended sequence number */
  gint64 arrival;
  gboolean start, marker;
} Entry;

struct _GstAmMerge {
  guint32 out_ssrc;
  GstClockTime latency;
  GQueue q;                     /* Entry *, ordered by (ts, layer, seq) */
  gboolean have_ts;
  guint32 ref_ts;               /* the newest timestamp seen and its unwrapped value */
  gint64 ref_ext;
  gboolean have_out;
  gint64 last_out_ts;
  guint16 out_seq;
  amcc_seq_ext seq[AMCC_AVMRC_MAX_LAYERS];
  GstAmMergeStats stats;
};

GstAmMerge *
gst_am_merge_new (guint32 out_ssrc, GstClockTime latency)
{
  GstAmMerge *m = g_new0 (GstAmMerge, 1);

  m->out_ssrc = out_ssrc;
  m->latency = latency;
  m->out_seq = (guint16) g_random_int ();
  g_queue_init (&m->q);
  return m;
}

static void
entry_free (gpointer p)
{
  Entry *e = p;
  gst_buffer_unref (e->buf);
  g_free (e);
}

void
gst_am_merge_free (GstAmMerge * m)
{
  if (!m)
    return;
  g_queue_clear_full (&m->q, entry_free);
  g_free (m);
}

void
gst_am_merge_reset_layer (GstAmMerge * m, guint layer)
{
  if (layer < AMCC_AVMRC_MAX_LAYERS)
    memset (&m->seq[layer], 0, sizeof m->seq[layer]);
}

const GstAmMergeStats *
gst_am_merge_stats (GstAmMerge * m)
{
  return &m->stats;
}

static gint
entry_cmp (const Entry * a, const Entry * b)
{
  if (a->ts != b->ts)
    return a->ts < b->ts ? -1 : 1;
  if (a->layer != b->layer)
    return a->layer < b->layer ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void
gst_am_merge_push (GstAmMerge * m, GstBuffer * buf, guint layer, gint64 now)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  Entry *e;
  GList *l;
  guint32 ts;

  m->stats.in++;
  if (layer >= AMCC_AVMRC_MAX_LAYERS || !gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp)) {
    m->stats.bad++;
    gst_buffer_unref (buf);
    return;
  }
  e = g_new0 (Entry, 1);
  e->buf = buf;
  e->layer = layer;
  e->arrival = now;
  ts = gst_rtp_buffer_get_timestamp (&rtp);
  e->seq = amcc_seq_ext_update (&m->seq[layer], gst_rtp_buffer_get_seq (&rtp));
  e->marker = gst_rtp_buffer_get_marker (&rtp);
  e->start = gst_am_vp8_frame_start (gst_rtp_buffer_get_payload (&rtp),
      gst_rtp_buffer_get_payload_len (&rtp));
  gst_rtp_buffer_unmap (&rtp);
  if (!m->have_ts) {
    m->have_ts = TRUE;
    m->ref_ts = ts;
    m->ref_ext = (gint64) 1 << 32;      /* room below for frames older than the first */
  }
  e->ts = m->ref_ext + (gint32) (ts - m->ref_ts);
  if (e->ts > m->ref_ext) {
    m->ref_ext = e->ts;
    m->ref_ts = ts;
  }
  if (m->have_out && e->ts <= m->last_out_ts) {
    m->stats.late++;
    entry_free (e);
    return;
  }
  for (l = m->q.tail; l && entry_cmp (l->data, e) > 0; l = l->prev);
  if (l)
    g_queue_insert_after (&m->q, l, e);
  else
    g_queue_push_head (&m->q, e);
}

/* The n entries at the head (one frame) in order: a start, no gap, a marker, one layer. */
static gboolean
frame_whole (GstAmMerge * m, guint n)
{
  Entry *first = g_queue_peek_head (&m->q), *prev = NULL;
  GList *l = m->q.head;
  guint i;

  if (!first->start)
    return FALSE;
  for (i = 0; i < n; i++, l = l->next) {
    Entry *e = l->data;
    if (prev && (e->layer != prev->layer || e->seq != prev->seq + 1))
      return FALSE;
    if (e->marker != (i == n - 1))
      return FALSE;
    prev = e;
  }
  return TRUE;
}

void
gst_am_merge_pop (GstAmMerge * m, gint64 now, gboolean flush, GQueue * out)
{
  while (!g_queue_is_empty (&m->q)) {
    Entry *head = g_queue_peek_head (&m->q);
    gint64 ts = head->ts, last = head->arrival;
    guint n = 0, i;
    GList *l;
    gboolean whole;

    for (l = m->q.head; l && ((Entry *) l->data)->ts == ts; l = l->next, n++)
      last = MAX (last, ((Entry *) l->data)->arrival);
    if (!flush && now - last < (gint64) m->latency)
      break;
    whole = frame_whole (m, n);
    for (i = 0; i < n; i++) {
      Entry *e = g_queue_pop_head (&m->q);
      if (whole) {
        GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
        GstBuffer *b = gst_buffer_make_writable (e->buf);
        e->buf = NULL;
        if (gst_rtp_buffer_map (b, GST_MAP_READWRITE, &rtp)) {
          gst_rtp_buffer_set_ssrc (&rtp, m->out_ssrc);
          gst_rtp_buffer_set_seq (&rtp, m->out_seq++);
          gst_rtp_buffer_unmap (&rtp);
        }
        g_queue_push_tail (out, b);
        m->stats.out++;
        g_free (e);
      } else {
        entry_free (e);
      }
    }
    if (whole)
      m->stats.frames_out++;
    else
      m->stats.frames_incomplete++;
    m->have_out = TRUE;
    m->last_out_ts = ts;
  }
}
