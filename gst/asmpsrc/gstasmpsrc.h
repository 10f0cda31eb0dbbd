/* gstasmpsrc.h - adaptive multicast RTP receiver (ASMP / TFMCC) around rtpbin. */
#ifndef GST_ASMP_SRC_H
#define GST_ASMP_SRC_H
#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_ASMP_SRC (gst_asmp_src_get_type ())
G_DECLARE_FINAL_TYPE (GstAsmpSrc, gst_asmp_src, GST, ASMP_SRC, GstBin)
GST_ELEMENT_REGISTER_DECLARE (asmpsrc);
G_END_DECLS
#endif
