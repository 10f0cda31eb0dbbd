/* gstasmpsink-fec.c - asmpsink's FEC glue (gstasmpsink-fec.h): translates between the element
 * and lib/cc/fec.c (the policy) and gst/common/gstamfec.c (the 2022-1 encoder and its sinks). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstasmpsink-fec.h"

#include <gst/rtp/gstrtpbuffer.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (asmpsink_debug);
#define GST_CAT_DEFAULT asmpsink_debug

#define DEFAULT_FEC_COLUMNS 5
#define DEFAULT_FEC_ROWS 0

enum { FEC_PROP_MODE, FEC_PROP_ADDRESS, FEC_PROP_COLUMNS, FEC_PROP_ROWS, FEC_PROP_MAX_DELAY,
  N_FEC_PROPS
};
static GParamSpec *fec_props[N_FEC_PROPS];

void
gst_asmp_sink_fec_init (GstAsmpSinkFec * f, GstObject * owner)
{
  memset (f, 0, sizeof *f);
  f->owner = owner;
  f->columns = DEFAULT_FEC_COLUMNS;
  f->rows = DEFAULT_FEC_ROWS;
  amcc_fec_params_default (&f->params);
}

void
gst_asmp_sink_fec_clear (GstAsmpSinkFec * f)
{
  g_free (f->address);
  f->address = NULL;
  gst_am_fec_send_clear (&f->send);
  gst_asmp_sink_fec_stop (f);
}

void
gst_asmp_sink_fec_stop (GstAsmpSinkFec * f)
{
  g_clear_pointer (&f->trace, gst_am_trace_close);
}

/* fec=auto: the matrix lib/cc chooses for the worst loss reported; the share it costs. */
gdouble
gst_asmp_sink_fec_share (GstAsmpSinkFec * f, GstAmCcSender * cc, gint64 now)
{
  amcc_fec_choice c;

  if (f->mode == GST_AM_FEC_OFF)
    return 0.0;
  f->worst_loss = gst_am_cc_sender_worst_loss (cc, now);
  f->need = amcc_fec_need (&f->params, f->worst_loss, f->pps);
  if (f->mode == GST_AM_FEC_FIXED)
    return amcc_fec_target_share (f->columns, f->rows, f->byte_share);
  if (amcc_fec_update (&f->params, f->worst_loss, f->pps, &f->choice, &c) != AMCC_OK)
    return f->share;
  if (c.columns != f->choice.columns || c.rows != f->choice.rows) {
    GST_INFO_OBJECT (f->owner, "loss %.4f at %.0f packet/s: FEC %u x %u (overhead %.3f)",
        f->worst_loss, f->pps, c.columns, c.rows, c.overhead);
    gst_am_fec_send_request (&f->send, c.columns, c.rows);
  }
  f->choice = c;
  return amcc_fec_target_share (c.columns, c.rows, f->byte_share);
}

/* Does this RTP packet start a key frame? (FEC matrices change there, as the bitrate does) */
static gboolean
rtp_key_start (GstBuffer * buf, GstAmCodec codec)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gboolean key = FALSE;

  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return FALSE;
  if (codec == GST_AM_CODEC_H264)
    key = gst_am_h264_key_start (gst_rtp_buffer_get_payload (&rtp),
        gst_rtp_buffer_get_payload_len (&rtp));
  else if (codec == GST_AM_CODEC_VP8)
    key = gst_am_vp8_payload_type (gst_rtp_buffer_get_payload (&rtp),
        gst_rtp_buffer_get_payload_len (&rtp)) == 'I';
  else
    key = !GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  gst_rtp_buffer_unmap (&rtp);
  return key;
}

void
gst_asmp_sink_fec_on_rtp (GstAsmpSinkFec * f, gsize size, gint64 now)
{
  f->pps_count++;
  f->media_bytes += size;
  if (now - f->pps_start >= GST_SECOND) {
    f->pps = f->pps_count * (gdouble) GST_SECOND / (now - f->pps_start);
    f->pps_start = now;
    f->pps_count = 0;
  }
}

void
gst_asmp_sink_fec_before (GstAsmpSinkFec * f, GstBuffer * buf, GstAmCodec codec)
{
  gst_am_fec_send_before (&f->send, buf, rtp_key_start (buf, codec));
}

void
gst_asmp_sink_fec_on_interval (GstAsmpSinkFec * f)
{
  guint64 fb;

  if (f->mode == GST_AM_FEC_OFF)
    return;
  fb = gst_am_fec_send_bytes (&f->send);
  f->byte_share = amcc_fec_byte_share (fb - f->fec_bytes_then,
      f->media_bytes - f->media_bytes_then);
  f->fec_bytes_then = fb;
  f->media_bytes_then = f->media_bytes;
}

void
gst_asmp_sink_fec_add_stats (GstAsmpSinkFec * f, GstStructure * stats, guint media_bps)
{
  if (f->mode == GST_AM_FEC_OFF)
    return;
  gst_structure_set (stats, "fec-overhead", G_TYPE_DOUBLE, f->share,
      "media-bitrate", G_TYPE_UINT, media_bps,
      "fec-byte-share", G_TYPE_DOUBLE, f->byte_share,
      "fec-worst-loss", G_TYPE_DOUBLE, f->worst_loss, "fec-need", G_TYPE_DOUBLE, f->need,
      "media-packet-rate", G_TYPE_DOUBLE, f->pps, NULL);
  gst_am_fec_send_add_stats (&f->send, stats);
  if (f->trace) {
    gdouble time = 0;
    guint l = 0, d = 0;
    gst_structure_get (stats, "time", G_TYPE_DOUBLE, &time, "fec-columns", G_TYPE_UINT, &l,
        "fec-rows", G_TYPE_UINT, &d, NULL);
    gst_am_trace_printf (f->trace, "%.6f,%.6f,%.1f,%u,%u,%.4f,%.4f,%.4f\n", time,
        f->worst_loss, f->pps, l, d, f->share, f->byte_share, f->need);
  }
}

gboolean
gst_asmp_sink_fec_start (GstAsmpSinkFec * f, GstElement * sink, GstElement * rtpbin,
    const GstAmNetConfig * net, GBytes * key, const gchar * trace_dir, gint64 now)
{
  gst_asmp_sink_fec_stop (f);
  if (f->mode != GST_AM_FEC_OFF) {
    GstPad *up = gst_element_get_static_pad (rtpbin, "send_rtp_src_0");
    gboolean ok;
    if (!f->address || (f->mode == GST_AM_FEC_FIXED && !f->columns)) {
      GST_ELEMENT_ERROR (sink, LIBRARY, SETTINGS, (NULL),
          ("fec=%s needs fec-address%s", f->mode == GST_AM_FEC_AUTO ? "auto" : "fixed",
              f->mode == GST_AM_FEC_FIXED ? " and fec-columns > 0" : ""));
      gst_clear_object (&up);
      return FALSE;
    }
    if (f->mode == GST_AM_FEC_FIXED)
      gst_am_fec_send_request (&f->send, f->columns, f->rows);
    else
      gst_am_fec_send_request (&f->send, 0, 0);
    ok = up && gst_am_fec_send_setup (&f->send, GST_BIN (sink), up, net, f->address,
        net->port, key);
    gst_clear_object (&up);
    if (!ok)
      return FALSE;
    if (trace_dir) {
      GError *err = NULL;
      f->trace = gst_am_trace_open (trace_dir, "fec.csv", "time_s,worst_loss,packet_rate,"
          "columns,rows,share,byte_share,need", &err);
      if (!f->trace) {
        GST_ELEMENT_ERROR (sink, RESOURCE, OPEN_WRITE, (NULL), ("%s", err->message));
        g_clear_error (&err);
        return FALSE;
      }
    }
  }
  memset (&f->choice, 0, sizeof f->choice);
  f->byte_share = 0;
  f->fec_bytes_then = f->media_bytes = f->media_bytes_then = 0;
  f->worst_loss = 0;
  f->need = 0;
  f->pps = 0;
  f->pps_count = 0;
  f->pps_start = now;
  return TRUE;
}

/* ---- properties ---- */
void
gst_asmp_sink_fec_install_properties (GObjectClass * klass, guint first_id)
{
  const GParamFlags rw_ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_READY;
  amcc_fec_params dflt;
  guint i;

  amcc_fec_params_default (&dflt);

  fec_props[FEC_PROP_MODE] = g_param_spec_enum ("fec", "FEC",
      "SMPTE 2022-1 FEC (rtpst2022-1-fecenc) on fec-address: off; auto: the matrix from the "
      "worst loss the receivers report (none while nobody loses; lib/cc/fec.c); fixed: "
      "fec-columns x fec-rows. The parity counts inside target-bitrate: the encoder gets "
      "target x (1 - overhead); matrix changes are applied at a key frame",
      GST_TYPE_AM_FEC_MODE, GST_AM_FEC_OFF, rw_ready);
  fec_props[FEC_PROP_ADDRESS] = g_param_spec_string ("fec-address", "FEC group",
      "Multicast group of the FEC streams: column FEC on port + 2, row FEC on port + 4 (a "
      "receiver opts in by joining it); required when fec is not off", NULL, rw_ready);
  fec_props[FEC_PROP_COLUMNS] = g_param_spec_uint ("fec-columns", "FEC columns",
      "fec=fixed: L, media packets per row FEC packet (1-20)", 1, 20, DEFAULT_FEC_COLUMNS,
      rw_ready);
  fec_props[FEC_PROP_ROWS] = g_param_spec_uint ("fec-rows", "FEC rows",
      "fec=fixed: D, rows per column FEC packet (4-20; 0 = row FEC only)", 0, 20,
      DEFAULT_FEC_ROWS, rw_ready);
  fec_props[FEC_PROP_MAX_DELAY] = g_param_spec_uint ("fec-max-delay", "FEC max delay",
      "fec=auto: the longest a matrix may span, first media packet to last parity, in ms "
      "(amcc_fec_params.max_delay_s): longer allows longer rows, so less parity for the same "
      "loss; the receivers' jitter-buffer latency must exceed it or late repairs are wasted",
      10, 5000, (guint) (dflt.max_delay_s * 1000.0 + 0.5), rw_ready);
  for (i = 0; i < N_FEC_PROPS; i++)
    g_object_class_install_property (klass, first_id + i, fec_props[i]);
  gst_type_mark_as_plugin_api (GST_TYPE_AM_FEC_MODE, 0);
}

gboolean
gst_asmp_sink_fec_set_property (GstAsmpSinkFec * f, GParamSpec * pspec, const GValue * value)
{
  if (pspec == fec_props[FEC_PROP_MODE]) {
    f->mode = g_value_get_enum (value);
  } else if (pspec == fec_props[FEC_PROP_ADDRESS]) {
    g_free (f->address);
    f->address = g_value_dup_string (value);
  } else if (pspec == fec_props[FEC_PROP_COLUMNS]) {
    f->columns = g_value_get_uint (value);
  } else if (pspec == fec_props[FEC_PROP_ROWS]) {
    f->rows = g_value_get_uint (value);
  } else if (pspec == fec_props[FEC_PROP_MAX_DELAY]) {
    f->params.max_delay_s = g_value_get_uint (value) / 1000.0;
  } else {
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_asmp_sink_fec_get_property (GstAsmpSinkFec * f, GParamSpec * pspec, GValue * value)
{
  if (pspec == fec_props[FEC_PROP_MODE])
    g_value_set_enum (value, f->mode);
  else if (pspec == fec_props[FEC_PROP_ADDRESS])
    g_value_set_string (value, f->address);
  else if (pspec == fec_props[FEC_PROP_COLUMNS])
    g_value_set_uint (value, f->columns);
  else if (pspec == fec_props[FEC_PROP_ROWS])
    g_value_set_uint (value, f->rows);
  else if (pspec == fec_props[FEC_PROP_MAX_DELAY])
    g_value_set_uint (value, (guint) (f->params.max_delay_s * 1000.0 + 0.5));
  else
    return FALSE;
  return TRUE;
}
