"""Training the dice reader's two small models (needs the `train` extra: torch, onnx).

Never imported at run time: the reader uses only the exported ONNX files in vision/models/.
"""
