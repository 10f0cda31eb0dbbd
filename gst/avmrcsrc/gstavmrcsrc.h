/* gstavmrcsrc.h - AVMRC layered receiver: joins the layers lib/cc wants, outputs them merged
 * as one RTP stream in decode order. */
#ifndef GST_AVMRC_SRC_H
#define GST_AVMRC_SRC_H
#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_AVMRC_SRC (gst_avmrc_src_get_type ())
G_DECLARE_FINAL_TYPE (GstAvmrcSrc, gst_avmrc_src, GST, AVMRC_SRC, GstBin)
GST_ELEMENT_REGISTER_DECLARE (avmrcsrc);

G_END_DECLS
#endif
