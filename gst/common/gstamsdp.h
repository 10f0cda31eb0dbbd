/* gstamsdp.h - writes an SDP file describing the stream so plain RTP receivers (udpsrc + depay,
 * ffplay -protocol_whitelist file,udp,rtp -i FILE) can play it. */
#ifndef GST_AM_SDP_H
#define GST_AM_SDP_H
#include <gst/gst.h>
#include "gstamnet.h"

G_BEGIN_DECLS
/* caps: the RTP caps on the sender's sink pad. Returns FALSE and sets error on failure. */
gboolean gst_am_sdp_write (const gchar * path, const GstCaps * caps,
    const GstAmNetConfig * net, guint32 ssrc, GError ** error);
/* The SDP text (g_free it), NULL if the caps cannot be described. */
gchar *gst_am_sdp_text (const GstCaps * caps, const GstAmNetConfig * net, guint32 ssrc);
/* Writes the SDP for caps to path, posting a warning on el if that fails (path may be NULL:
 * nothing to do). The ssrc comes from the caps. */
void gst_am_sdp_write_or_warn (GstElement * el, const gchar * path, const GstCaps * caps,
    const GstAmNetConfig * net);
G_END_DECLS
#endif
