"""The Qt views: the only package that imports PySide6 or qasync."""
