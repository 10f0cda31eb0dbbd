/* gstasmpsink.h - adaptive multicast RTP sender (ASMP / TFMCC) around rtpbin. */
#ifndef GST_ASMP_SINK_H
#define GST_ASMP_SINK_H
#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_ASMP_SINK (gst_asmp_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstAsmpSink, gst_asmp_sink, GST, ASMP_SINK, GstBin)
GST_ELEMENT_REGISTER_DECLARE (asmpsink);
G_END_DECLS
#endif
