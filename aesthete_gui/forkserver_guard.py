"""Imported only by the multiprocessing fork server (its preload list): it ends when Aesthete dies.

Never import this module anywhere else: importing it arms the parent-death signal of the importing
process (see aesthete_gui.process_guard).
"""

from aesthete_gui.process_guard import guard_fork_server

guard_fork_server()
