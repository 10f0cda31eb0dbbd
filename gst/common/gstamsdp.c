/* gstamsdp.c - SDP description of the asmpsink stream (RFC 4566). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamsdp.h"

#include <gst/sdp/sdp.h>

gchar *
gst_am_sdp_text (const GstCaps * caps, const GstAmNetConfig * net, guint32 ssrc)
{
  GstSDPMessage *msg;
  GstSDPMedia *media;
  gboolean mc = gst_am_address_is_multicast (net->address);
  gchar *sess_id, *port, *text;
  GstCaps *c;
  GstStructure *s;

  if (!caps || gst_caps_get_size (caps) < 1)
    return NULL;
  /* describe only the fields an SDP can carry; our header extensions are added below */
  c = gst_caps_copy (caps);
  s = gst_caps_get_structure (c, 0);
  gst_structure_remove_fields (s, "ssrc", "timestamp-offset", "seqnum-offset", NULL);

  gst_sdp_message_new (&msg);
  sess_id = g_strdup_printf ("%u", ssrc);
  gst_sdp_message_set_version (msg, "0");
  gst_sdp_message_set_origin (msg, "-", sess_id, "1", "IN", "IP4", "127.0.0.1");
  gst_sdp_message_set_session_name (msg, "gst-amcast asmpsink");
  gst_sdp_message_add_time (msg, "0", "0", NULL);
  if (mc) {
    /* RFC 4566 5.7: IPv4 multicast needs the TTL */
    gst_sdp_message_set_connection (msg, "IN", "IP4", net->address, net->ttl, 0);
  } else {
    gst_sdp_message_set_connection (msg, "IN", "IP4", net->address, 0, 0);
  }

  gst_sdp_media_new (&media);
  gst_sdp_media_set_proto (media, "RTP/AVP");
  gst_sdp_media_set_port_info (media, net->port, 1);
  if (gst_sdp_media_set_media_from_caps (c, media) != GST_SDP_OK) {
    gst_sdp_media_free (media);
    gst_sdp_message_free (msg);
    gst_caps_unref (c);
    g_free (sess_id);
    return NULL;
  }
  gst_sdp_media_set_port_info (media, net->port, 1);
  port = g_strdup_printf ("%d", net->port + 1);
  gst_sdp_media_add_attribute (media, "rtcp", port);
  gst_sdp_media_add_attribute (media, "extmap",
      "1 " GST_AM_EXT_URI_NTP64);
  gst_sdp_media_add_attribute (media, "extmap",
      "2 " GST_AM_EXT_URI_EXTSEQ);
  gst_sdp_media_add_attribute (media, "recvonly", NULL);
  gst_sdp_message_add_media (msg, media);
  gst_sdp_media_free (media);
  text = gst_sdp_message_as_text (msg);
  gst_sdp_message_free (msg);
  gst_caps_unref (c);
  g_free (sess_id);
  g_free (port);
  return text;
}

gboolean
gst_am_sdp_write (const gchar * path, const GstCaps * caps, const GstAmNetConfig * net,
    guint32 ssrc, GError ** error)
{
  gchar *text = gst_am_sdp_text (caps, net, ssrc);
  gboolean ok;

  if (!text) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "cannot describe caps %" GST_PTR_FORMAT " in SDP", caps);
    return FALSE;
  }
  ok = g_file_set_contents (path, text, -1, error);
  g_free (text);
  return ok;
}

void
gst_am_sdp_write_or_warn (GstElement * el, const gchar * path, const GstCaps * caps,
    const GstAmNetConfig * net)
{
  GError *err = NULL;
  guint ssrc = 0;

  if (!path || gst_caps_get_size (caps) < 1)
    return;
  gst_structure_get_uint (gst_caps_get_structure (caps, 0), "ssrc", &ssrc);
  if (!gst_am_sdp_write (path, caps, net, ssrc, &err)) {
    GST_ELEMENT_WARNING (el, RESOURCE, WRITE, ("cannot write SDP file %s", path),
        ("%s", err->message));
    g_clear_error (&err);
  }
}
