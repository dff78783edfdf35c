-- RUBBoS schema for MariaDB/MySQL. Eight tables; columns and indexes follow the original benchmark's data model.
-- Statements are separated by lines holding a single ';' so the loader can split them without parsing SQL.
DROP TABLE IF EXISTS categories, users, stories, old_stories, submissions, comments, old_comments, moderator_log
;
CREATE TABLE categories (
  id INTEGER UNSIGNED NOT NULL PRIMARY KEY,
  name VARCHAR(50)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
;
CREATE TABLE users (
  id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  firstname VARCHAR(20),
  lastname VARCHAR(20),
  nickname VARCHAR(20) NOT NULL UNIQUE,
  password VARCHAR(20) NOT NULL,
  email VARCHAR(50) NOT NULL,
  rating INTEGER,
  access INTEGER,
  creation_date DATETIME,
  INDEX auth (nickname, password)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
;
CREATE TABLE stories (
  id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(100),
  body TEXT,
  date DATETIME,
  writer INTEGER UNSIGNED NOT NULL,
  category INTEGER UNSIGNED NOT NULL,
  INDEX writer_id (writer),
  INDEX category_id (category),
  INDEX search (title(10)),
  INDEX day (date)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
;
CREATE TABLE old_stories (
  id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(100),
  body TEXT,
  date DATETIME,
  writer INTEGER UNSIGNED NOT NULL,
  category INTEGER UNSIGNED NOT NULL,
  INDEX writer_id (writer),
  INDEX category_id (category),
  INDEX search (title(10)),
  INDEX day (date)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
;
CREATE TABLE submissions (
  id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(100),
  body TEXT,
  date DATETIME,
  writer INTEGER UNSIGNED,
  category INTEGER UNSIGNED NOT NULL,
  INDEX writer_id (writer),
  INDEX category_id (category),
  INDEX day (date)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
;
CREATE TABLE comments (
  id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  writer INTEGER UNSIGNED,
  story_id INTEGER UNSIGNED NOT NULL,
  parent INTEGER UNSIGNED,
  childs INTEGER UNSIGNED,
  rating INTEGER,
  date DATETIME,
  subject VARCHAR(100),
  comment TEXT,
  INDEX story (story_id),
  INDEX search (subject(10)),
  INDEX parent_id (parent),
  INDEX rating_num (rating)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
;
CREATE TABLE old_comments (
  id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  writer INTEGER UNSIGNED,
  story_id INTEGER UNSIGNED NOT NULL,
  parent INTEGER UNSIGNED,
  childs INTEGER UNSIGNED,
  rating INTEGER,
  date DATETIME,
  subject VARCHAR(100),
  comment TEXT,
  INDEX story (story_id),
  INDEX search (subject(10)),
  INDEX parent_id (parent),
  INDEX rating_num (rating)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
;
CREATE TABLE moderator_log (
  id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  moderator_id INTEGER UNSIGNED NOT NULL,
  comment_id INTEGER UNSIGNED NOT NULL,
  rating INTEGER,
  date DATETIME,
  INDEX comment (comment_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
;
