"""The personal profile: one SQLite file per profile, numbered migrations, one connection per thread."""

from aesthete_gui.store.db import Profile, open_profile
from aesthete_gui.store.errors import (
    NotAProfileError,
    ProfileBusyError,
    ProfileCannotOpenError,
    ProfileDamagedError,
    ProfileDiskError,
    ProfileDiskFullError,
    ProfileError,
    ProfileIsFolderError,
    ProfileReadOnlyError,
    ProfileTooNewError,
)
from aesthete_gui.store.records import (
    COLOR_LABELS,
    AdapterRecord,
    BurstRecord,
    ChoiceRecord,
    ImageRecord,
    ImageUpdate,
    MarkRecord,
    RunRecord,
    StoredJudgment,
)

__all__ = [
    "COLOR_LABELS",
    "AdapterRecord",
    "BurstRecord",
    "ChoiceRecord",
    "ImageRecord",
    "ImageUpdate",
    "MarkRecord",
    "NotAProfileError",
    "Profile",
    "ProfileBusyError",
    "ProfileCannotOpenError",
    "ProfileDamagedError",
    "ProfileDiskError",
    "ProfileDiskFullError",
    "ProfileError",
    "ProfileIsFolderError",
    "ProfileReadOnlyError",
    "ProfileTooNewError",
    "RunRecord",
    "StoredJudgment",
    "open_profile",
]
