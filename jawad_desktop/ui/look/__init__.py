"""The look every widget shares: the theme, the icons, the app's resources and the small control builders."""
