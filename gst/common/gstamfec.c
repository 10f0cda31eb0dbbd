/* gstamfec.c - SMPTE 2022-1 FEC glue (gstamfec.h). */
#include "gstamfec.h"
#include <gst/rtp/gstrtpbuffer.h>
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

/* Sets the SSRC of one RTP buffer (made writable); returns the old one, 0 if not RTP. */
static guint32
swap_ssrc (GstBuffer ** buf, guint32 ssrc)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint32 old;

  *buf = gst_buffer_make_writable (*buf);
  if (!gst_rtp_buffer_map (*buf, GST_MAP_READWRITE, &rtp))
    return 0;
  old = gst_rtp_buffer_get_ssrc (&rtp);
  gst_rtp_buffer_set_ssrc (&rtp, ssrc);
  gst_rtp_buffer_unmap (&rtp);
  return old;
}

typedef guint32 (*SsrcFn) (gpointer f, guint32 seen);

/* Applies fn's SSRC to every buffer of a probe (buffer or list); fn sees the old SSRC. */
static GstPadProbeReturn
rewrite_probe (GstPadProbeInfo * info, SsrcFn fn, gpointer f)
{
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint32 seen = 0;
    if (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp)) {
      seen = gst_rtp_buffer_get_ssrc (&rtp);
      gst_rtp_buffer_unmap (&rtp);
    }
    swap_ssrc (&b, fn (f, seen));
    GST_PAD_PROBE_INFO_DATA (info) = b;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
    guint i;
    for (i = 0; i < gst_buffer_list_length (l); i++) {
      GstBuffer *b = gst_buffer_ref (gst_buffer_list_get (l, i));
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
      guint32 seen = 0;
      if (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp)) {
        seen = gst_rtp_buffer_get_ssrc (&rtp);
        gst_rtp_buffer_unmap (&rtp);
      }
      gst_buffer_list_remove (l, i, 1);
      swap_ssrc (&b, fn (f, seen));
      gst_buffer_list_insert (l, i, b);
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

/* ---------------------------------------------------------------- sender */

static guint32
send_to_zero (gpointer p, guint32 seen)
{
  GstAmFecSend *f = p;
  g_mutex_lock (&f->lock);
  f->ssrc = seen;
  f->media_packets++;
  g_mutex_unlock (&f->lock);
  return 0;
}

static guint32
send_from_zero (gpointer p, guint32 seen)
{
  GstAmFecSend *f = p;
  guint32 s;
  g_mutex_lock (&f->lock);
  s = f->ssrc;
  g_mutex_unlock (&f->lock);
  return s;
}

static GstPadProbeReturn
enc_sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer f)
{
  return rewrite_probe (info, send_to_zero, f);
}

static GstPadProbeReturn
enc_src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer f)
{
  return rewrite_probe (info, send_from_zero, f);
}

/* RFC 2733 sets the parity packet's X bit to the XOR of the media packets' (all 1 here: our
 * header extensions), so over an odd number of packets it claims an extension it does not
 * have and rtpst2022-1-fecdec drops it as invalid RTP. The receiver hands its decoder the media
 * without extensions (strip_for_decoder), for which the right parity X is 0: cleared here. */
static void
clear_x (GstBuffer ** buf)
{
  GstMapInfo m;

  *buf = gst_buffer_make_writable (*buf);
  if (gst_buffer_map (*buf, &m, GST_MAP_READWRITE)) {
    if (m.size >= 12)
      m.data[0] &= ~0x10;
    gst_buffer_unmap (*buf, &m);
  }
}

static GstPadProbeReturn
fec_out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer p)
{
  GstAmFecSend *f = p;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
    clear_x (&b);
    GST_PAD_PROBE_INFO_DATA (info) = b;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
    guint i;
    for (i = 0; i < gst_buffer_list_length (l); i++) {
      GstBuffer *b = gst_buffer_ref (gst_buffer_list_get (l, i));
      gst_buffer_list_remove (l, i, 1);
      clear_x (&b);
      gst_buffer_list_insert (l, i, b);
    }
    GST_PAD_PROBE_INFO_DATA (info) = l;
  }
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
    const GstAmNetConfig * net, const gchar * fec_address, gint port)
{
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

/* rtpst2022-1-fecdec (1.22) rebuilds the payload only, not the header extension, while it takes
 * X from the parity of the headers: a packet rebuilt from packets with extensions claims one it
 * lacks and is dropped as invalid. So the decoder gets each media packet without its extension
 * and with SSRC 0 (the sender protects them the same way: the parity's X cleared), and what it
 * passes on is swapped back for the packet as it arrived (kept by sequence number). A rebuilt
 * packet gets our extended-sequence extension again, from the last one seen, for rd.txt. */
static GstBuffer *
strip_for_decoder (GstBuffer * in)
{
  GstRTPBuffer r = GST_RTP_BUFFER_INIT, w = GST_RTP_BUFFER_INIT;
  GstBuffer *out;
  guint i, plen, cc;

  if (!gst_rtp_buffer_map (in, GST_MAP_READ, &r))
    return gst_buffer_ref (in);
  if (gst_rtp_buffer_get_padding (&r)) {        /* not from a payloader we know: as it is */
    gst_rtp_buffer_unmap (&r);
    out = gst_buffer_copy (in);
    swap_ssrc (&out, 0);
    return out;
  }
  plen = gst_rtp_buffer_get_payload_len (&r);
  cc = gst_rtp_buffer_get_csrc_count (&r);
  out = gst_rtp_buffer_new_allocate (plen, 0, cc);
  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  gst_rtp_buffer_map (out, GST_MAP_WRITE, &w);
  gst_rtp_buffer_set_marker (&w, gst_rtp_buffer_get_marker (&r));
  gst_rtp_buffer_set_payload_type (&w, gst_rtp_buffer_get_payload_type (&r));
  gst_rtp_buffer_set_seq (&w, gst_rtp_buffer_get_seq (&r));
  gst_rtp_buffer_set_timestamp (&w, gst_rtp_buffer_get_timestamp (&r));
  gst_rtp_buffer_set_ssrc (&w, 0);
  for (i = 0; i < cc; i++)
    gst_rtp_buffer_set_csrc (&w, i, gst_rtp_buffer_get_csrc (&r, i));
  memcpy (gst_rtp_buffer_get_payload (&w), gst_rtp_buffer_get_payload (&r), plen);
  gst_rtp_buffer_unmap (&w);
  gst_rtp_buffer_unmap (&r);
  return out;
}

/* Marks seq in the window of recent sequence numbers; TRUE if it was there already. */
static gboolean
mark_seen (GstAmFecRecv * f, guint16 seq)
{
  guint32 *slot = &f->seen[seq % GST_AM_FEC_SEEN_WINDOW];
  gboolean was = *slot == (0x10000u | seq);
  *slot = 0x10000u | seq;
  return was;
}

/* A media packet arriving: remember it, hand the decoder its stripped copy. */
static GstBuffer *
on_dec_in (GstAmFecRecv * f, GstBuffer * b)
{
  GstAmRtpInfo info;
  GstBuffer **slot;

  if (!gst_am_rtp_read (b, &info))
    return gst_buffer_ref (b);
  g_mutex_lock (&f->lock);
  f->media_in++;
  f->ssrc = info.ssrc;
  if (info.has_extseq) {
    f->extseq = info.extseq;
    f->have_extseq = TRUE;
  }
  if (mark_seen (f, info.seq))
    f->late++;                  /* it arrived after we had rebuilt it */
  slot = &f->kept[info.seq % GST_AM_FEC_KEEP];
  gst_buffer_replace (slot, b);
  g_mutex_unlock (&f->lock);
  return strip_for_decoder (b);
}

/* What the decoder passes on: the packet as it arrived, or a rebuilt one. */
static GstBuffer *
on_dec_out (GstAmFecRecv * f, GstBuffer * b)
{
  GstRTPBuffer r = GST_RTP_BUFFER_INIT;
  GstBuffer *kept, *out;
  guint16 seq;
  guint32 ssrc, extseq = 0;
  gboolean have;

  if (!gst_rtp_buffer_map (b, GST_MAP_READ, &r))
    return b;
  seq = gst_rtp_buffer_get_seq (&r);
  gst_rtp_buffer_unmap (&r);
  g_mutex_lock (&f->lock);
  f->media_out++;
  kept = f->kept[seq % GST_AM_FEC_KEEP];
  if (kept) {
    GstRTPBuffer k = GST_RTP_BUFFER_INIT;
    gboolean same = gst_rtp_buffer_map (kept, GST_MAP_READ, &k)
        && gst_rtp_buffer_get_seq (&k) == seq;
    if (k.buffer)
      gst_rtp_buffer_unmap (&k);
    if (same) {
      f->kept[seq % GST_AM_FEC_KEEP] = NULL;    /* our ref moves to the output */
      g_mutex_unlock (&f->lock);
      gst_buffer_unref (b);
      return kept;
    }
  }
  if (!mark_seen (f, seq))
    f->recovered++;
  ssrc = f->ssrc;
  have = f->have_extseq;
  if (have)                     /* the extended number nearest to the last one seen */
    extseq = f->extseq + (gint16) (seq - (guint16) f->extseq);
  g_mutex_unlock (&f->lock);
  out = b;
  swap_ssrc (&out, ssrc);
  if (have)
    gst_am_rtp_stamp (&out, gst_am_now (), extseq);
  return out;
}

typedef GstBuffer *(*BufFn) (GstAmFecRecv * f, GstBuffer * b);

/* fn's buffer replaces each one of the probe (fn takes b's ref) */
static void
replace_each (GstPadProbeInfo * info, GstAmFecRecv * f, BufFn fn, gboolean takes)
{
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info), *n = fn (f, b);
    if (!takes)
      gst_buffer_unref (b);
    GST_PAD_PROBE_INFO_DATA (info) = n;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
    guint i;
    for (i = 0; i < gst_buffer_list_length (l); i++) {
      GstBuffer *b = gst_buffer_ref (gst_buffer_list_get (l, i)), *n;
      gst_buffer_list_remove (l, i, 1);
      n = fn (f, b);
      if (!takes)
        gst_buffer_unref (b);
      gst_buffer_list_insert (l, i, n);
    }
    GST_PAD_PROBE_INFO_DATA (info) = l;
  }
}

static GstPadProbeReturn
dec_sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer f)
{
  replace_each (info, f, on_dec_in, FALSE);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
dec_src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer f)
{
  replace_each (info, f, on_dec_out, TRUE);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
fec_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer p)
{
  GstAmFecRecv *f = p;
  g_mutex_lock (&f->lock);
  f->fec_in += probe_count (info, &f->fec_bytes_pending);
  g_mutex_unlock (&f->lock);
  return GST_PAD_PROBE_OK;
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
    const GstAmNetConfig * net, const gchar * fec_address, gint port)
{
  GstAmNetConfig fnet = *net;
  GstCaps *caps;

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

  for (i = 0; i < GST_AM_FEC_KEEP; i++)
    gst_clear_buffer (&f->kept[i]);
  if (f->dec)
    g_mutex_clear (&f->lock);
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
      "fec-rebuilt-early", G_TYPE_UINT64, f->late, NULL);
  g_mutex_unlock (&f->lock);
}
