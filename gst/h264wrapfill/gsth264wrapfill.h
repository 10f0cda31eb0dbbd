/* gsth264wrapfill.h - between an H.264 depayloader and avdec_h264: a synthetic frame_num-0
 * skip picture (the last picture again, in the last lost frame's slot) when the frames lost
 * before a picture include frame_num 0, so libavcodec does not drop the next ~30 frames of an
 * intra-refresh stream (issue 15, lib/cc/amcc/h264fill.h). */
#ifndef GST_H264_WRAP_FILL_H
#define GST_H264_WRAP_FILL_H
#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_H264_WRAP_FILL (gst_h264_wrap_fill_get_type ())
G_DECLARE_FINAL_TYPE (GstH264WrapFill, gst_h264_wrap_fill, GST, H264_WRAP_FILL, GstElement)
GST_ELEMENT_REGISTER_DECLARE (h264wrapfill);

G_END_DECLS
#endif
