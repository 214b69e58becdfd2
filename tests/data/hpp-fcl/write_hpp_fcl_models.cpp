// Writes an hpp-fcl 2.x BVHModel of every bounding-volume type, in the three boost archives
// (text, XML, binary) its serialization headers write, over a mesh read from an OBJ file
// (lines "v x y z" and "f i j k", 1-based). The Python bindings of hpp-fcl 2.4.4 build only
// OBB and OBBRSS models and save none of them (no saveToText there); this program uses the
// library and headers the hpp-fcl wheel installs. Build and run: see README.md in this folder.
#include <hpp/fcl/BV/BV.h>
#include <hpp/fcl/BVH/BVH_model.h>
#include <hpp/fcl/serialization/BVH_model.h>

#include <boost/archive/binary_oarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <boost/archive/xml_oarchive.hpp>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

template <typename BV>
void write_all(const std::vector<hpp::fcl::Vec3f>& vertices,
               const std::vector<hpp::fcl::Triangle>& triangles, const std::string& stem) {
  hpp::fcl::BVHModel<BV> model;
  model.beginModel();
  model.addSubModel(vertices, triangles);
  model.endModel();
  {
    std::ofstream out(stem + ".txt");
    boost::archive::text_oarchive oa(out);
    oa << model;
  }
  {
    std::ofstream out(stem + ".xml");
    boost::archive::xml_oarchive oa(out);
    oa << boost::serialization::make_nvp("model", model);
  }
  {
    std::ofstream out(stem + ".bin", std::ios::binary);
    boost::archive::binary_oarchive oa(out);
    oa << model;
  }
  std::cout << stem << ": " << model.getNumBVs() << " nodes" << std::endl;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: write_hpp_fcl_models MESH.obj OUT_PREFIX" << std::endl;
    return 2;
  }
  std::ifstream in(argv[1]);
  std::vector<hpp::fcl::Vec3f> vertices;
  std::vector<hpp::fcl::Triangle> triangles;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string tag;
    words >> tag;
    if (tag == "v") {
      double x, y, z;
      words >> x >> y >> z;
      vertices.emplace_back(x, y, z);
    } else if (tag == "f") {
      std::size_t a, b, c;
      words >> a >> b >> c;
      triangles.emplace_back(a - 1, b - 1, c - 1);
    }
  }
  const std::string prefix = argv[2];
  write_all<hpp::fcl::AABB>(vertices, triangles, prefix + "-aabb");
  write_all<hpp::fcl::OBB>(vertices, triangles, prefix + "-obb");
  write_all<hpp::fcl::RSS>(vertices, triangles, prefix + "-rss");
  write_all<hpp::fcl::OBBRSS>(vertices, triangles, prefix + "-obbrss");
  write_all<hpp::fcl::kIOS>(vertices, triangles, prefix + "-kios");
  return 0;
}
