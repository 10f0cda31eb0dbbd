/* gstasspsrc.h - ASSP simulcast receiver: the stream its path carries, as one RTP stream. */
#ifndef GST_ASSP_SRC_H
#define GST_ASSP_SRC_H
#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_ASSP_SRC (gst_assp_src_get_type ())
G_DECLARE_FINAL_TYPE (GstAsspSrc, gst_assp_src, GST, ASSP_SRC, GstBin)
GST_ELEMENT_REGISTER_DECLARE (asspsrc);

G_END_DECLS
#endif
