<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.8" tiledversion="1.8.2" name="carcamap-kinds" tilewidth="32" tileheight="32" tilecount="9" columns="9">
 <image source="carcamap-kinds.png" width="288" height="32"/>
 <tile id="0">
  <properties>
   <property name="kind" value="none"/>
  </properties>
 </tile>
 <tile id="1">
  <properties>
   <property name="kind" value="land"/>
  </properties>
 </tile>
 <tile id="2">
  <properties>
   <property name="kind" value="start"/>
  </properties>
 </tile>
 <tile id="3">
  <properties>
   <property name="kind" value="town"/>
  </properties>
 </tile>
 <tile id="4">
  <properties>
   <property name="kind" value="bigcity"/>
  </properties>
 </tile>
 <tile id="5">
  <properties>
   <property name="kind" value="waves"/>
  </properties>
 </tile>
 <tile id="6">
  <properties>
   <property name="kind" value="landmark"/>
  </properties>
 </tile>
 <tile id="7">
  <properties>
   <property name="kind" value="island"/>
  </properties>
 </tile>
 <tile id="8">
  <properties>
   <property name="kind" value="half"/>
  </properties>
 </tile>
</tileset>
