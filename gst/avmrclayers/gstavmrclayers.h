/* gstavmrclayers.h - AVMRC layered sender: one RTP VP8 stream in, one multicast group per
 * temporal layer out, every packet stamped for lib/cc's receiver-driven controller. */
#ifndef GST_AVMRC_LAYERS_H
#define GST_AVMRC_LAYERS_H
#include <gst/gst.h>
#include "../common/gstamsessionbin.h"

G_BEGIN_DECLS
#define GST_TYPE_AVMRC_LAYERS (gst_avmrc_layers_get_type ())
G_DECLARE_FINAL_TYPE (GstAvmrcLayers, gst_avmrc_layers, GST, AVMRC_LAYERS, GstAmSessionBin)
GST_ELEMENT_REGISTER_DECLARE (avmrclayers);

G_END_DECLS
#endif
