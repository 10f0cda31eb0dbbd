/* gstamfec.c - SMPTE 2022-1 FEC glue (gstamfec.h). */
#include "gstamfec.h"
#include <gst/rtp/gstrtpbuffer.h>
#include <string.h>
#include <amcc/fec.h>

GST_DEBUG_CATEGORY_STATIC (amfec_debug);
#define GST_CAT_DEFAULT amfec_debug

GType
gst_am_fec_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AM_FEC_OFF, "No FEC", "off"},
    {GST_AM_FEC_AUTO, "Matrix from the worst loss the receivers report", "auto"},
    {GST_AM_FEC_FIXED, "fec-columns x fec-rows throughout", "fixed"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAmFecMode", values);
    GST_DEBUG_CATEGORY_INIT (amfec_debug, "amfec", 0, "amcast SMPTE 2022-1 FEC glue");
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---- the form the FEC encoder and decoder see ----
 * SMPTE 2022-1 parity (rtpst2022-1-fecenc/-fecdec, 1.22) covers an RTP packet's payload, marker,
 * payload type, timestamp and length, not its CSRCs, header extension or SSRC, and the two
 * elements take SSRC 0 only. So they get each packet folded: a 12-byte header with SSRC 0 and
 * no CSRC, extension or padding, whose payload is the original's first byte and then everything
 * after its fixed header (CSRCs, extension, payload, padding, SRTP's tag). A packet rebuilt from
 * parity unfolds into the original byte for byte: with srtp-key it authenticates like a packet
 * that arrived, header extensions (the send time, the extended sequence number) included. */
static GstBuffer *
fold (GstBuffer * in)
{
  GstMapInfo m, o;
  GstBuffer *out;

  if (!gst_buffer_map (in, &m, GST_MAP_READ))
    return gst_buffer_ref (in);
  if (m.size < 12 || (m.data[0] >> 6) != 2) {
    gst_buffer_unmap (in, &m);
    return gst_buffer_ref (in); /* not RTP: as it is (rtpbin drops it) */
  }
  out = gst_buffer_new_allocate (NULL, m.size + 1, NULL);
  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  gst_buffer_map (out, &o, GST_MAP_WRITE);
  memcpy (o.data, m.data, 8);   /* marker, payload type, seq, timestamp */
  o.data[0] = 0x80;             /* V=2 and nothing else */
  memset (o.data + 8, 0, 4);
  o.data[12] = m.data[0];
  memcpy (o.data + 13, m.data + 12, m.size - 12);
  gst_buffer_unmap (out, &o);
  gst_buffer_unmap (in, &m);
  return out;
}

/* fold, taking b's ref */
static GstBuffer *
fold_take (GstBuffer * b)
{
  GstBuffer *out = fold (b);

  gst_buffer_unref (b);
  return out;
}

/* The original of a folded packet, its SSRC ssrc. */
static GstBuffer *
unfold (GstBuffer * in, guint32 ssrc)
{
  GstMapInfo m, o;
  GstBuffer *out;

  if (!gst_buffer_map (in, &m, GST_MAP_READ))
    return gst_buffer_ref (in);
  if (m.size < 13) {
    gst_buffer_unmap (in, &m);
    return gst_buffer_ref (in);
  }
  out = gst_buffer_new_allocate (NULL, m.size - 1, NULL);
  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  gst_buffer_map (out, &o, GST_MAP_WRITE);
  o.data[0] = m.data[12];
  memcpy (o.data + 1, m.data + 1, 7);
  GST_WRITE_UINT32_BE (o.data + 8, ssrc);
  memcpy (o.data + 12, m.data + 13, m.size - 13);
  gst_buffer_unmap (out, &o);
  gst_buffer_unmap (in, &m);
  return out;
}

/* fn's buffer replaces each one of a probe (buffer or list). fn takes b's ref and returns the
 * buffer to pass on, or NULL (b's ref not taken) to drop b. */
typedef GstBuffer *(*BufFn) (gpointer f, GstBuffer * b);

static GstPadProbeReturn
map_buffers (GstPadProbeInfo * info, gpointer f, BufFn fn)
{
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *n = fn (f, GST_PAD_PROBE_INFO_BUFFER (info));
    if (!n)
      return GST_PAD_PROBE_DROP;        /* the core drops the buffer's ref */
    GST_PAD_PROBE_INFO_DATA (info) = n;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
    guint i = 0;
    while (i < gst_buffer_list_length (l)) {
      GstBuffer *b = gst_buffer_ref (gst_buffer_list_get (l, i)), *n;
      gst_buffer_list_remove (l, i, 1);
      n = fn (f, b);
      if (!n) {
        gst_buffer_unref (b);
        continue;
      }
      gst_buffer_list_insert (l, i++, n);
    }
    GST_PAD_PROBE_INFO_DATA (info) = l;
  }
  return GST_PAD_PROBE_OK;
}

static guint
probe_count (GstPadProbeInfo * info, guint64 * bytes)
{
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    *bytes += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
    return 1;
  }
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = GST_PAD_PROBE_INFO_BUFFER_LIST (info);
    *bytes += gst_buffer_list_calculate_size (l);
    return gst_buffer_list_length (l);
  }
  return 0;
}

#define DATA_PROBES (GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST)

/* Put e between upstream and whatever upstream was linked to (e's sink and src pads). */
static void
splice_in (GstPad * upstream, GstElement * e)
{
  GstPad *peer = gst_pad_get_peer (upstream), *pad;

  if (peer) {
    gst_pad_unlink (upstream, peer);
    pad = gst_element_get_static_pad (e, "src");
    gst_pad_link (pad, peer);
    gst_object_unref (pad);
    gst_object_unref (peer);
  }
  pad = gst_element_get_static_pad (e, "sink");
  gst_pad_link (upstream, pad);
  gst_object_unref (pad);
}

static void
add_probe (GstElement * e, const gchar * pad_name, GstPadProbeCallback cb, gpointer f)
{
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  gst_pad_add_probe (pad, DATA_PROBES, cb, f, NULL);
  gst_object_unref (pad);
}

/* srtp-key's tag on the parity: one GstAmAuth per FEC stream (labels "fec column", "fec row"),
 * made again at every start (a new sender id), none when key is NULL */
static void
set_auth (GstAmAuth * auth[2], GBytes * key)
{
  static const gchar *const label[2] = { "fec column", "fec row" };
  guint i;

  for (i = 0; i < 2; i++) {
    gst_am_auth_free (auth[i]);
    auth[i] = key ? gst_am_auth_new (key, label[i]) : NULL;
  }
}

/* ---------------------------------------------------------------- sender */

/* media into the encoder: folded (its SSRC remembered) */
static GstBuffer *
send_fold (gpointer p, GstBuffer * b)
{
  GstAmFecSend *f = p;
  GstAmRtpInfo info;

  if (gst_am_rtp_read (b, &info)) {
    g_mutex_lock (&f->lock);
    f->ssrc = info.ssrc;
    f->media_packets++;
    g_mutex_unlock (&f->lock);
  }
  return fold_take (b);
}

/* media out of the encoder: as it came in */
static GstBuffer *
send_unfold (gpointer p, GstBuffer * b)
{
  GstAmFecSend *f = p;
  GstBuffer *out;
  guint32 ssrc;

  g_mutex_lock (&f->lock);
  ssrc = f->ssrc;
  g_mutex_unlock (&f->lock);
  out = unfold (b, ssrc);
  gst_buffer_unref (b);
  return out;
}

static GstPadProbeReturn
enc_sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer f)
{
  return map_buffers (info, f, send_fold);
}

static GstPadProbeReturn
enc_src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer f)
{
  return map_buffers (info, f, send_unfold);
}

static GstBuffer *
tag_parity (gpointer a, GstBuffer * b)
{
  return gst_am_auth_protect_buffer (a, b);
}

/* parity leaving (fec_0: column, fec_1: row): tagged with srtp-key, counted */
static GstPadProbeReturn
fec_out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer p)
{
  GstAmFecSend *f = p;
  GstAmAuth *a = f->auth[g_str_equal (GST_PAD_NAME (pad), "fec_0") ? 0 : 1];

  if (a)
    map_buffers (info, a, tag_parity);
  g_mutex_lock (&f->lock);
  f->fec_packets += probe_count (info, &f->fec_bytes);
  g_mutex_unlock (&f->lock);
  return GST_PAD_PROBE_OK;
}

static void
store_event (GstPad * pad, GstEvent * ev)
{
  gst_pad_store_sticky_event (pad, ev);
  gst_event_unref (ev);
}

/* fec_0 carries column FEC, fec_1 row FEC; they exist from READY->PAUSED to PAUSED->READY */
static void
enc_pad_added (GstElement * enc, GstPad * pad, gpointer p)
{
  GstAmFecSend *f = p;
  gchar *name = gst_pad_get_name (pad);
  GstElement *sink = g_str_equal (name, "fec_0") ? f->col_sink : f->row_sink;
  GstPad *peer = gst_element_get_static_pad (sink, "sink");

  GstSegment seg;
  GstCaps *caps;
  gchar *sid;

  if (gst_pad_link (pad, peer) != GST_PAD_LINK_OK)
    GST_WARNING_OBJECT (enc, "could not link %s", name);
  /* a pad made again by a matrix change gets no stream-start from the encoder before its
   * first parity packet: give it its own (sent ahead of the first buffer) */
  sid = gst_pad_create_stream_id (pad, enc, name);
  store_event (pad, gst_event_new_stream_start (sid));
  g_free (sid);
  caps = gst_caps_new_empty_simple ("application/x-rtp");
  store_event (pad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  store_event (pad, gst_event_new_segment (&seg));
  gst_pad_add_probe (pad, DATA_PROBES, fec_out_probe, f, NULL);
  gst_object_unref (peer);
  g_free (name);
}

gboolean
gst_am_fec_send_setup (GstAmFecSend * f, GstBin * bin, GstPad * upstream,
    const GstAmNetConfig * net, const gchar * fec_address, gint port, GBytes * key)
{
  set_auth (f->auth, key);      /* before any parity: the encoder is not running */
  if (f->enc)
    return TRUE;                /* inserted at an earlier start */
  g_mutex_init (&f->lock);
  f->enc = gst_am_make (bin, "rtpst2022-1-fecenc", "fec_enc");
  f->col_sink = gst_am_make (bin, "udpsink", "fec_col_sink");
  f->row_sink = gst_am_make (bin, "udpsink", "fec_row_sink");
  if (!f->enc || !f->col_sink || !f->row_sink)
    return FALSE;
  gst_am_net_setup_udpsink (f->col_sink, net, fec_address, port + GST_AM_FEC_COLUMN_PORT_OFFSET);
  gst_am_net_setup_udpsink (f->row_sink, net, fec_address, port + GST_AM_FEC_ROW_PORT_OFFSET);
  g_object_set (f->enc, "columns", f->want_columns, "rows", f->want_rows,
      "enable-row-fec", f->want_columns > 0, "enable-column-fec",
      f->want_columns > 0 && f->want_rows > 0, NULL);
  f->columns = f->want_columns;
  f->rows = f->want_rows;
  f->pending = FALSE;
  g_signal_connect (f->enc, "pad-added", G_CALLBACK (enc_pad_added), f);

  f->upstream = gst_object_ref (upstream);
  splice_in (upstream, f->enc);
  add_probe (f->enc, "sink", enc_sink_probe, f);
  add_probe (f->enc, "src", enc_src_probe, f);
  return TRUE;
}

void
gst_am_fec_send_clear (GstAmFecSend * f)
{
  if (f->enc)
    g_mutex_clear (&f->lock);
  set_auth (f->auth, NULL);
  gst_clear_object (&f->upstream);
  f->enc = f->col_sink = f->row_sink = NULL;
}

void
gst_am_fec_send_request (GstAmFecSend * f, guint columns, guint rows)
{
  if (f->enc)
    g_mutex_lock (&f->lock);
  if (columns != f->columns || rows != f->rows || f->pending)
    f->pending = TRUE;
  f->want_columns = columns;
  f->want_rows = columns ? rows : 0;
  if (f->enc)
    g_mutex_unlock (&f->lock);
}

static gboolean
resend_event (GstPad * pad, GstEvent ** event, gpointer sinkpad)
{
  gst_pad_send_event (GST_PAD (sinkpad), gst_event_ref (*event));
  return TRUE;
}

void
gst_am_fec_send_before (GstAmFecSend * f, GstBuffer * buf, gboolean key)
{
  guint l, d, cur_l, cur_d;
  GstPad *sink;

  if (!f->enc || !key)
    return;
  g_mutex_lock (&f->lock);
  if (!f->pending) {
    g_mutex_unlock (&f->lock);
    return;
  }
  l = f->want_columns;
  d = f->want_rows;
  if (amcc_fec_parity_ratio (l, d) > amcc_fec_parity_ratio (f->columns, f->rows)
      && ++f->keys_waited < GST_AM_FEC_GROW_KEYS) {
    g_mutex_unlock (&f->lock);
    return;
  }
  f->pending = FALSE;
  f->keys_waited = 0;
  g_mutex_unlock (&f->lock);
  g_object_get (f->enc, "columns", &cur_l, "rows", &cur_d, NULL);
  if (l != cur_l || d != cur_d) {
    /* rtpst2022-1-fecenc (1.22) takes any property, enable-* included, only in READY: cycle
     * it (its fec pads go and come back and are linked again in enc_pad_added), then replay
     * the sticky events its sink pad lost. 0 columns: both kinds off. */
    gst_element_set_state (f->enc, GST_STATE_READY);
    g_object_set (f->enc, "columns", l, "rows", d, "enable-row-fec", l > 0,
        "enable-column-fec", l > 0 && d > 0, NULL);
    gst_element_sync_state_with_parent (f->enc);
    sink = gst_element_get_static_pad (f->enc, "sink");
    gst_pad_sticky_events_foreach (f->upstream, resend_event, sink);
    gst_object_unref (sink);
  }
  g_mutex_lock (&f->lock);
  f->columns = l;
  f->rows = d;
  f->switches++;
  g_mutex_unlock (&f->lock);
  GST_INFO_OBJECT (f->enc, "FEC matrix now %u x %u", l, d);
}

guint64
gst_am_fec_send_bytes (GstAmFecSend * f)
{
  guint64 b;

  if (!f->enc)
    return 0;
  g_mutex_lock (&f->lock);
  b = f->fec_bytes;
  g_mutex_unlock (&f->lock);
  return b;
}

void
gst_am_fec_send_add_stats (GstAmFecSend * f, GstStructure * st)
{
  if (!f->enc)
    return;
  g_mutex_lock (&f->lock);
  gst_structure_set (st, "fec-columns", G_TYPE_UINT, f->columns, "fec-rows", G_TYPE_UINT,
      f->rows, "fec-packets-sent", G_TYPE_UINT64, f->fec_packets, "fec-bytes-sent",
      G_TYPE_UINT64, f->fec_bytes, "fec-switches", G_TYPE_UINT64, f->switches, NULL);
  g_mutex_unlock (&f->lock);
}

/* ---------------------------------------------------------------- receiver */

/* The decoder gets each media packet folded (fold above); what it passes on is unfolded, and
 * the packets as they arrived are kept by sequence number to tell an arrival from a copy. */

/* Marks seq in the window of recent sequence numbers; TRUE if it was there already. */
static gboolean
mark_seen (GstAmFecRecv * f, guint16 seq)
{
  guint32 *slot = &f->seen[seq % GST_AM_FEC_SEEN_WINDOW];
  gboolean was = *slot == (0x10000u | seq);
  *slot = 0x10000u | seq;
  return was;
}

/* f->state[]: seq | what became of the first packet the decoder passed on for it << 16.
 * PASSED: gone on, the original had not arrived (a rebuilt copy); ARRIVED: gone on, the
 * original had arrived (that copy or the original itself: byte for byte the same);
 * DELIVERED: a PASSED one got through authentication (lib/cc did not count it); DONE: counted. */
enum { PASSED = 1, ARRIVED, DELIVERED, DONE };

static gboolean
same_bytes (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo m;
  gboolean same;

  if (!a || gst_buffer_get_size (a) != gst_buffer_get_size (b)
      || !gst_buffer_map (a, &m, GST_MAP_READ))
    return FALSE;
  same = gst_buffer_memcmp (b, 0, m.data, m.size) == 0;
  gst_buffer_unmap (a, &m);
  return same;
}

/* A media packet arriving: remember it, hand the decoder its folded copy. */
static GstBuffer *
on_dec_in (gpointer p, GstBuffer * b)
{
  GstAmFecRecv *f = p;
  GstAmRtpInfo info;

  if (gst_am_rtp_read (b, &info)) {
    g_mutex_lock (&f->lock);
    f->media_in++;
    f->ssrc = info.ssrc;
    if (mark_seen (f, info.seq))
      f->late++;                /* it arrived after we had rebuilt it */
    gst_buffer_replace (&f->kept[info.seq % GST_AM_FEC_KEEP], b);
    g_mutex_unlock (&f->lock);
  }
  return fold_take (b);
}

/* What the decoder passes on, unfolded. The decoder passes on what arrived and what it rebuilt,
 * in whatever order the media's and the parity's socket threads reach it (the parity often
 * overtakes the row's last packet, which is then rebuilt before it is read): per sequence number
 * the first packet goes on, a later one that is that packet byte for byte is dropped (srtpdec
 * would count it as a replay; the jitter buffer would drop it), one that differs (forged, or a
 * copy spoilt by forged media) goes on: srtpdec decides. */
static GstBuffer *
on_dec_out (gpointer p, GstBuffer * b)
{
  GstAmFecRecv *f = p;
  GstRTPBuffer r = GST_RTP_BUFFER_INIT;
  GstBuffer *out, *kept = NULL;
  guint16 seq;
  guint32 ssrc, *st;
  guint i;
  gboolean again, late = FALSE;

  if (!gst_rtp_buffer_map (b, GST_MAP_READ, &r))
    return b;
  seq = gst_rtp_buffer_get_seq (&r);
  gst_rtp_buffer_unmap (&r);
  i = seq % GST_AM_FEC_KEEP;
  g_mutex_lock (&f->lock);
  f->media_out++;
  if (!mark_seen (f, seq))
    f->recovered++;
  ssrc = f->ssrc;
  g_mutex_unlock (&f->lock);
  out = unfold (b, ssrc);
  g_mutex_lock (&f->lock);
  st = &f->state[i];
  again = (*st & 0xffff) == seq && (*st >> 16) && same_bytes (f->passed[i], out);
  if (again) {
    late = *st >> 16 == DELIVERED;      /* the original, after its copy got through */
    if (late)
      *st = DONE << 16 | seq;
    else if (*st >> 16 == PASSED)
      *st = ARRIVED << 16 | seq;
  } else if ((*st & 0xffff) != seq || !(*st >> 16)) {
    GstBuffer *copy = gst_buffer_copy_deep (out);       /* srtpdec works on out in place */
    kept = f->kept[i];
    *st = (kept && same_bytes (kept, out) ? ARRIVED : PASSED) << 16 | seq;
    gst_buffer_replace (&f->passed[i], copy);
    gst_buffer_unref (copy);
  }
  g_mutex_unlock (&f->lock);
  if (!again) {
    gst_buffer_unref (b);
    return out;
  }
  if (late && f->on_late)
    f->on_late (f->user, out, gst_am_now ());
  gst_buffer_unref (out);
  return NULL;                  /* b dropped */
}

static GstPadProbeReturn
dec_sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer f)
{
  return map_buffers (info, f, on_dec_in);
}

static GstPadProbeReturn
dec_src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer f)
{
  return map_buffers (info, f, on_dec_out);
}

typedef struct {
  GstAmFecRecv *f;
  GstAmAuth *auth;
} Check;

/* a parity packet arriving: with srtp-key its tag checked and taken off, else dropped */
static GstBuffer *
check_parity (gpointer p, GstBuffer * b)
{
  Check *c = p;
  GstAmAuthResult res = GST_AM_AUTH_OK;
  GstBuffer *out = c->auth ? gst_am_auth_check_buffer (c->auth, b, &res) : b;

  g_mutex_lock (&c->f->lock);
  if (out) {
    c->f->fec_in++;
    c->f->fec_bytes_pending += gst_buffer_get_size (b);
  } else {
    c->f->fec_rejected++;
  }
  g_mutex_unlock (&c->f->lock);
  if (out && out != b)
    gst_buffer_unref (b);
  return out;
}

static GstPadProbeReturn
fec_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer p)
{
  GstAmFecRecv *f = p;
  Check c = { f, f->auth[GST_PAD_PARENT (pad) == (GstElement *) f->col_src ? 0 : 1] };

  return map_buffers (info, &c, check_parity);
}

static gboolean
link_fec_src (GstAmFecRecv * f, GstElement * src, const gchar * dec_pad)
{
  GstPad *s = gst_element_get_static_pad (src, "src");
  GstPad *d = gst_element_request_pad_simple (f->dec, dec_pad);
  gboolean ok = d && gst_pad_link (s, d) == GST_PAD_LINK_OK;

  gst_pad_add_probe (s, DATA_PROBES, fec_in_probe, f, NULL);
  gst_object_unref (s);
  if (d)
    gst_object_unref (d);       /* the request pad stays on the element */
  return ok;
}

gboolean
gst_am_fec_recv_setup (GstAmFecRecv * f, GstBin * bin, GstPad * upstream,
    const GstAmNetConfig * net, const gchar * fec_address, gint port, GBytes * key)
{
  GstAmNetConfig fnet = *net;
  GstCaps *caps;

  set_auth (f->auth, key);
  if (f->dec)
    return TRUE;
  g_mutex_init (&f->lock);
  f->dec = gst_am_make (bin, "rtpst2022-1-fecdec", "fec_dec");
  f->col_src = gst_am_make (bin, "udpsrc", "fec_col_src");
  f->row_src = gst_am_make (bin, "udpsrc", "fec_row_src");
  if (!f->dec || !f->col_src || !f->row_src)
    return FALSE;
  fnet.address = (gchar *) fec_address;
  gst_am_net_setup_udpsrc (f->col_src, &fnet, port + GST_AM_FEC_COLUMN_PORT_OFFSET);
  gst_am_net_setup_udpsrc (f->row_src, &fnet, port + GST_AM_FEC_ROW_PORT_OFFSET);
  caps = gst_caps_new_empty_simple ("application/x-rtp");
  g_object_set (f->col_src, "caps", caps, NULL);
  g_object_set (f->row_src, "caps", caps, NULL);
  gst_caps_unref (caps);

  splice_in (upstream, f->dec);
  add_probe (f->dec, "sink", dec_sink_probe, f);
  add_probe (f->dec, "src", dec_src_probe, f);
  return link_fec_src (f, f->col_src, "fec_%u") && link_fec_src (f, f->row_src, "fec_%u");
}

void
gst_am_fec_recv_clear (GstAmFecRecv * f)
{
  guint i;

  for (i = 0; i < GST_AM_FEC_KEEP; i++) {
    gst_clear_buffer (&f->kept[i]);
    gst_clear_buffer (&f->passed[i]);
  }
  if (f->dec)
    g_mutex_clear (&f->lock);
  set_auth (f->auth, NULL);
  f->dec = f->col_src = f->row_src = NULL;
}

guint64
gst_am_fec_recv_take_bytes (GstAmFecRecv * f)
{
  guint64 b;

  if (!f->dec)
    return 0;
  g_mutex_lock (&f->lock);
  b = f->fec_bytes_pending;
  f->fec_bytes_pending = 0;
  g_mutex_unlock (&f->lock);
  return b;
}

void
gst_am_fec_recv_add_stats (GstAmFecRecv * f, GstStructure * st)
{
  if (!f->dec)
    return;
  g_mutex_lock (&f->lock);
  /* recovered: rebuilt and never arrived; rebuilt early: rebuilt, then the packet arrived
   * (the parity was there before the last packet of its row) */
  gst_structure_set (st, "fec-packets-received", G_TYPE_UINT64, f->fec_in,
      "fec-recovered", G_TYPE_UINT64, f->recovered - MIN (f->late, f->recovered),
      "fec-rebuilt-early", G_TYPE_UINT64, f->late,
      "srtp-fec-rejected", G_TYPE_UINT64, f->fec_rejected, NULL);
  g_mutex_unlock (&f->lock);
}

gboolean
gst_am_fec_recv_take_rebuilt (GstAmFecRecv * f, guint16 seq)
{
  guint32 *st = &f->state[seq % GST_AM_FEC_KEEP];
  gboolean rebuilt_only = FALSE;

  if (!f->dec)
    return FALSE;
  g_mutex_lock (&f->lock);
  if (*st == (PASSED << 16 | seq) || *st == (ARRIVED << 16 | seq)) {
    rebuilt_only = *st >> 16 == PASSED;
    *st = (rebuilt_only ? DELIVERED : DONE) << 16 | seq;
  }
  g_mutex_unlock (&f->lock);
  return rebuilt_only;
}
