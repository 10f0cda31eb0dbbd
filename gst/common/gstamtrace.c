/* gstamtrace.c - trace files and frame typing. Every payload read is bounds-checked. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamtrace.h"
#include "gstamnet.h"

#include <gst/rtp/gstrtpbuffer.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>

GstAmTrace *
gst_am_trace_open (const gchar * dir, const gchar * name, const gchar * header,
    GError ** error)
{
  return gst_am_trace_open_full (dir, name, header, FALSE, error);
}

GstAmTrace *
gst_am_trace_open_full (const gchar * dir, const gchar * name, const gchar * header,
    gboolean append, GError ** error)
{
  GstAmTrace *t;
  gchar *path;
  FILE *f;

  if (g_mkdir_with_parents (dir, 0755) != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot create trace directory %s: %s", dir, g_strerror (errno));
    return NULL;
  }
  path = g_build_filename (dir, name, NULL);
  /* appending (a stream re-joined): the header is written only into an empty file */
  f = g_fopen (path, append ? "a" : "w");
  if (!f) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot open %s: %s", path, g_strerror (errno));
    g_free (path);
    return NULL;
  }
  setvbuf (f, NULL, _IOLBF, 0);
  t = g_new0 (GstAmTrace, 1);
  t->f = f;
  t->path = path;
  if (header && (!append || ftell (f) == 0))
    fprintf (f, "%s\n", header);
  return t;
}

gboolean
gst_am_trace_open_pair (const gchar * dir, const gchar * name1, GstAmTrace ** t1,
    const gchar * name2, const gchar * header2, GstAmTrace ** t2, GError ** error)
{
  return gst_am_trace_open_pair_full (dir, name1, t1, name2, header2, t2, FALSE, error);
}

gboolean
gst_am_trace_open_pair_full (const gchar * dir, const gchar * name1, GstAmTrace ** t1,
    const gchar * name2, const gchar * header2, GstAmTrace ** t2, gboolean append,
    GError ** error)
{
  *t1 = gst_am_trace_open_full (dir, name1, NULL, append, error);
  *t2 = *t1 ? gst_am_trace_open_full (dir, name2, header2, append, error) : NULL;
  if (*t1 && !*t2)
    g_clear_pointer (t1, gst_am_trace_close);
  return *t2 != NULL;
}

void
gst_am_trace_close (GstAmTrace * t)
{
  if (!t)
    return;
  fclose (t->f);
  g_free (t->path);
  g_free (t);
}

void
gst_am_trace_flush (GstAmTrace * t)
{
  if (t)
    fflush (t->f);
}

void
gst_am_trace_printf (GstAmTrace * t, const gchar * fmt, ...)
{
  va_list ap;

  if (!t)
    return;
  va_start (ap, fmt);
  vfprintf (t->f, fmt, ap);
  va_end (ap);
}

static void
print_time (GstAmTrace * t, gint64 now)
{
  gint64 wall_ns = gst_am_wall (now);

  fprintf (t->f, "%" G_GINT64_FORMAT ".%06d", wall_ns / 1000000000,
      (gint) ((wall_ns % 1000000000) / 1000));
}

void
gst_am_trace_sd (GstAmTrace * t, gint64 now, guint64 id, gsize size,
    guint64 frame, gchar type)
{
  if (!t)
    return;
  print_time (t, now);
  fprintf (t->f, " id %" G_GUINT64_FORMAT " udp %" G_GSIZE_FORMAT " %"
      G_GUINT64_FORMAT " %c\n", id, size, frame, type);
}

void
gst_am_trace_rd (GstAmTrace * t, gint64 now, guint64 id, gsize size)
{
  if (!t)
    return;
  print_time (t, now);
  fprintf (t->f, " id %" G_GUINT64_FORMAT " udp %" G_GSIZE_FORMAT "\n", id, size);
}

GstAmCodec
gst_am_codec_from_caps (const GstCaps * caps)
{
  const gchar *enc;

  if (!caps || gst_caps_get_size (caps) < 1)
    return GST_AM_CODEC_OTHER;
  enc = gst_structure_get_string (gst_caps_get_structure (caps, 0), "encoding-name");
  if (!enc)
    return GST_AM_CODEC_OTHER;
  if (g_ascii_strcasecmp (enc, "H264") == 0)
    return GST_AM_CODEC_H264;
  if (g_ascii_strcasecmp (enc, "VP8") == 0 || g_ascii_strcasecmp (enc, "VP8-DRAFT-IETF-01") == 0)
    return GST_AM_CODEC_VP8;
  return GST_AM_CODEC_OTHER;
}

/* Exp-Golomb reader over an H.264 RBSP that skips emulation-prevention bytes. */
typedef struct {
  const guint8 *p;
  gsize len, byte;
  guint bit, zeros;
  gboolean err;
} BitReader;

static guint
read_bit (BitReader * br)
{
  guint v;

  if (br->bit == 0) {
    if (br->byte >= br->len) {
      br->err = TRUE;
      return 0;
    }
    /* 00 00 03 -> drop the 03 */
    if (br->zeros >= 2 && br->p[br->byte] == 3) {
      br->zeros = 0;
      if (++br->byte >= br->len) {
        br->err = TRUE;
        return 0;
      }
    }
    br->zeros = br->p[br->byte] == 0 ? br->zeros + 1 : 0;
  }
  v = (br->p[br->byte] >> (7 - br->bit)) & 1;
  if (++br->bit == 8) {
    br->bit = 0;
    br->byte++;
  }
  return v;
}

static guint
read_ue (BitReader * br)
{
  guint lz = 0, v = 0, i;

  while (!br->err && read_bit (br) == 0)
    if (++lz > 31) {
      br->err = TRUE;
      return 0;
    }
  for (i = 0; i < lz && !br->err; i++)
    v = (v << 1) | read_bit (br);
  return (1u << lz) - 1 + v;
}

/* Type of one NAL unit given its header byte and the bytes after it. */
static gchar
nal_type (guint8 hdr, const guint8 * rbsp, gsize len)
{
  guint t = hdr & 0x1f, slice_type;
  BitReader br = { rbsp, len, 0, 0, 0, FALSE };

  if (t == 5)
    return 'I';
  if (t == 1) {
    read_ue (&br);              /* first_mb_in_slice */
    slice_type = read_ue (&br) % 5;
    if (br.err)
      return 'P';
    return slice_type == 1 ? 'B' : (slice_type == 2 || slice_type == 4) ? 'I' : 'P';
  }
  return 'H';                   /* SPS, PPS, SEI, AUD ...: no picture data */
}

/* I beats P beats B beats H when a packet holds several NAL units. */
static gchar
stronger (gchar a, gchar b)
{
  static const gchar order[] = "HBPI";
  if (!a)
    return b;
  if (!b)
    return a;
  return strchr (order, a) > strchr (order, b) ? a : b;
}

gchar
gst_am_h264_payload_type (const guint8 * p, gsize len)
{
  guint t;
  gsize off;
  gchar type = 0;

  if (len < 1)
    return 0;
  t = p[0] & 0x1f;
  if (t >= 1 && t <= 23)
    return nal_type (p[0], p + 1, len - 1);
  if (t == 24) {                /* STAP-A: 16-bit size + NAL, repeated */
    for (off = 1; off + 2 < len;) {
      gsize n = ((gsize) p[off] << 8) | p[off + 1];
      off += 2;
      if (n == 0 || n > len - off)
        break;
      type = stronger (type, nal_type (p[off], p + off + 1, n - 1));
      off += n;
    }
    return type;
  }
  if (t == 28 && len >= 2) {    /* FU-A: only the start fragment has the slice header */
    if (!(p[1] & 0x80))
      return 0;
    return nal_type ((p[0] & 0xe0) | (p[1] & 0x1f), p + 2, len - 2);
  }
  return 0;
}

gchar
gst_am_vp8_payload_type (const guint8 * p, gsize len)
{
  gsize off = 1;

  if (len < 1)
    return 0;
  /* start of partition 0 (S = 1, PID = 0) carries the VP8 frame header */
  if (!(p[0] & 0x10) || (p[0] & 0x07) != 0)
    return 0;
  if (p[0] & 0x80) {            /* X: extension byte with I L T K */
    guint8 x;
    if (len < 2)
      return 0;
    x = p[1];
    off = 2;
    if (x & 0x80) {             /* I: picture id, 7 or 15 bits */
      if (off >= len)
        return 0;
      off += (p[off] & 0x80) ? 2 : 1;
    }
    if (x & 0x40)               /* L: TL0PICIDX */
      off++;
    if (x & 0x30)               /* T or K: TID/KEYIDX */
      off++;
  }
  if (off >= len)
    return 0;
  return (p[off] & 0x01) ? 'P' : 'I';   /* inverse key-frame flag */
}

void
gst_am_framer_init (GstAmFramer * fr, GstAmCodec codec)
{
  memset (fr, 0, sizeof (*fr));
  fr->codec = codec;
}

gchar
gst_am_framer_packet (GstAmFramer * fr, guint32 rtp_ts, gboolean marker,
    const guint8 * payload, gsize len, guint64 * frame)
{
  gchar t = 0;

  if (!fr->started) {
    fr->started = TRUE;
    fr->rtp_ts = rtp_ts;
  } else if (rtp_ts != fr->rtp_ts || fr->marker) {
    fr->rtp_ts = rtp_ts;
    fr->frame++;
    fr->frame_type = 0;
  }
  fr->marker = marker;
  *frame = fr->frame;
  if (fr->codec == GST_AM_CODEC_H264)
    t = gst_am_h264_payload_type (payload, len);
  else if (fr->codec == GST_AM_CODEC_VP8)
    t = gst_am_vp8_payload_type (payload, len);
  else
    return 'P';
  if (t && t != 'H')
    fr->frame_type = t;
  if (t)
    return t;
  /* continuation fragment: the type of the frame's slices so far */
  return fr->frame_type ? fr->frame_type : 'H';
}

void
gst_am_send_trace_reset (GstAmSendTrace * st, GstAmCodec codec)
{
  memset (st, 0, sizeof (*st));
  gst_am_framer_init (&st->framer, codec);
}

void
gst_am_send_trace_set_codec (GstAmSendTrace * st, GstAmCodec codec)
{
  st->framer.codec = codec;
}

gsize
gst_am_send_trace_packet (GstAmSendTrace * st, GstAmTrace * sd, GstBuffer * buf, gint64 now)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint32 extseq, ssrc;
  guint64 frame = 0;
  gchar type = 'P';
  gboolean ok;

  if (!gst_rtp_buffer_map (buf, GST_MAP_READWRITE, &rtp))
    return gst_buffer_get_size (buf);
  ssrc = gst_rtp_buffer_get_ssrc (&rtp);
  extseq = amcc_seq_ext_update (&st->seqext, gst_rtp_buffer_get_seq (&rtp));
  if (sd)
    type = gst_am_framer_packet (&st->framer, gst_rtp_buffer_get_timestamp (&rtp),
        gst_rtp_buffer_get_marker (&rtp), gst_rtp_buffer_get_payload (&rtp), gst_rtp_buffer_get_payload_len (&rtp), &frame);
  /* after reading the payload: adding extensions may move it */
  ok = gst_am_rtp_stamp_mapped (&rtp, now, extseq);
  gst_rtp_buffer_unmap (&rtp);
  if (!ok)
    GST_WARNING ("could not add the RTP header extensions");
  gst_am_trace_sd (sd, now, gst_am_wide_id (ssrc, extseq), gst_buffer_get_size (buf), frame,
      type);
  return gst_buffer_get_size (buf);
}

void
gst_am_trace_rate_row (GstAmTrace * t, const GstStructure * s)
{
  gdouble time = 0, sent = 0, minr = 0;
  guint target = 0, n = 0;

  if (!t)
    return;
  gst_structure_get (s, "time", G_TYPE_DOUBLE, &time, "target-bitrate", G_TYPE_UINT, &target,
      "sent-bitrate", G_TYPE_DOUBLE, &sent, "receivers", G_TYPE_UINT, &n,
      "min-receiver-bitrate", G_TYPE_DOUBLE, &minr, NULL);
  gst_am_trace_printf (t, "%.6f,%u,%.0f,%u,%.0f,%s\n", time, target, sent, n, minr,
      gst_structure_get_string (s, "protocol"));
}

void
gst_am_trace_stats_row (GstAmTrace * t, const GstStructure * s)
{
  gdouble time = 0, rate = 0, recv = 0, loss = 0, rtt = 0, jit = 0, queue = 0;
  gboolean cong = FALSE;
  const gchar *mode = gst_structure_get_string (s, "mode");

  if (!t)
    return;
  gst_structure_get (s, "time", G_TYPE_DOUBLE, &time, "rate-bps", G_TYPE_DOUBLE, &rate,
      "recv-bitrate", G_TYPE_DOUBLE, &recv, "loss", G_TYPE_DOUBLE, &loss, "rtt-s",
      G_TYPE_DOUBLE, &rtt, "jitter-s", G_TYPE_DOUBLE, &jit, "congested", G_TYPE_BOOLEAN,
      &cong, "queue-s", G_TYPE_DOUBLE, &queue, NULL);
  gst_am_trace_printf (t, "%.6f,%.0f,%.0f,%.6f,%.6f,%.6f,%d,%s,%.4f\n", time, rate, recv, loss,
      rtt, jit, cong ? 1 : 0, mode ? mode : "", queue);
}
